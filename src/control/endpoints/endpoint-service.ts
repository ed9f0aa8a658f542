import type { Config } from '../../config/schema.js';
import type { ComplianceReport, CustomEndpoint, CustomEndpointStore } from '../../domain/stores/custom-endpoint-store.js';
import { errors } from '../../errors/catalog.js';
import { blockedReason } from '../../lib/address-guard.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { maskSecret, seal, sealContext, unseal } from '../../lib/secret-box.js';
import type { DataplaneNotifier } from '../control-deps.js';
import type { ProxyDispatchers } from '../proxy-dispatchers.js';
import { testEndpoint } from './endpoint-compliance.js';
import { checkEndpointConfig, checkEndpointName, checkNewEndpoint, type EndpointConfig } from './endpoint-rules.js';

export interface EndpointServiceDeps {
  endpoints: CustomEndpointStore;
  clock: Clock;
  log: Logger;
  /** Seals the endpoints' keys at rest. */
  masterKey: Buffer;
  /** The compliance tests' outbound calls, through the forward proxy. */
  outbound: ProxyDispatchers;
  settings: Readonly<Config['customEndpoints']>;
  /** Tells the data plane that an org's endpoint was registered, retested or removed. */
  endpointChanged: DataplaneNotifier['endpointChanged'];
}

/**
 * An org's own OpenAI-compatible endpoints (spec 4.9). Each is guarded against server-side
 * request forgery, compliance-tested (model list, chat, stream) before it is saved and on
 * request, its key sealed like a saved provider key, and called by the data plane as
 * `custom/<name>/<model>` only while compliant, on the org's own account (not debited).
 */
export class EndpointService {
  readonly #d: EndpointServiceDeps;

  constructor(deps: EndpointServiceDeps) {
    this.#d = deps;
  }

  /** At start: every org's endpoints to the data plane, but those whose key does not open. */
  async publishAll(): Promise<void> {
    for (const e of await this.#d.endpoints.all()) {
      let key: string | null;
      try {
        key = this.#key(e);
      } catch {
        // Sealed under another master key (GW_MASTER_KEY changed): unusable until registered again.
        this.#d.log.warn('registered endpoint key does not open with this master key; skipped', { org: e.orgId, endpoint: e.name });
        continue;
      }
      this.#publish(e, key);
    }
  }

  /** Another instance registered, tested or removed the org's endpoint `name`: this one's data plane takes it as saved. */
  async republish(orgId: string, name: string): Promise<void> {
    const e = (await this.#d.endpoints.list(orgId)).find((x) => x.name === name);
    if (!e) {
      this.#d.endpointChanged(orgId, name, null);
      return;
    }
    try {
      this.#publish(e, this.#key(e));
    } catch {
      this.#d.log.warn('registered endpoint key does not open with this master key; skipped (every instance needs the same GW_MASTER_KEY)', { org: orgId, endpoint: name });
    }
  }

  list(orgId: string): Promise<CustomEndpoint[]> {
    return this.#d.endpoints.list(orgId);
  }

  /** Registers an endpoint (a unique name, within the org's cap) once its config is checked and tested. */
  async register(orgId: string, name: string, config: EndpointConfig): Promise<CustomEndpoint> {
    const d = this.#d;
    const max = d.settings.maxPerOrg;
    checkEndpointName(name);
    const { baseUrl, key } = await checkEndpointConfig(config, d.settings.allowInternalAddresses);
    checkNewEndpoint(await d.endpoints.newEndpointFacts(orgId, name), name, max);
    const report = await this.#run(baseUrl, key);
    // Checked again in the insert: the test took time, and another request may have taken the name or the last place.
    const e = await d.endpoints.create({
      orgId, name, baseUrl,
      keySealed: key === null ? null : seal(key, d.masterKey, sealContext.endpointKey(orgId, name)),
      keyHint: key === null ? null : maskSecret(key),
      compliance: report,
    }, d.clock.now(), (facts) => checkNewEndpoint(facts, name, max));
    this.#publish(e, key);
    return e;
  }

  /** Tests a config without saving anything. */
  async test(config: EndpointConfig): Promise<ComplianceReport> {
    const { baseUrl, key } = await checkEndpointConfig(config, this.#d.settings.allowInternalAddresses);
    return this.#run(baseUrl, key);
  }

  /** Tests a registered endpoint again; it is called only while its last test passed. */
  async retest(orgId: string, id: string): Promise<CustomEndpoint> {
    const d = this.#d;
    const e = await this.#inOrg(orgId, id);
    const key = this.#key(e);
    // The address is checked again: a name may since resolve elsewhere.
    const blocked = await blockedReason(new URL(e.baseUrl), d.settings.allowInternalAddresses);
    const report: ComplianceReport = blocked === null ? await this.#run(e.baseUrl, key)
      : { status: 'unreachable', models: [], checks: [{ name: 'models', ok: false, detail: blocked }] };
    const after = await d.endpoints.recordTest(e.id, report, d.clock.now());
    if (!after) throw notInOrg();
    this.#publish(after, key);
    return after;
  }

  /** Removes an endpoint; requests for it stop at once. */
  async remove(orgId: string, id: string): Promise<void> {
    const e = await this.#inOrg(orgId, id);
    await this.#d.endpoints.delete(e.id);
    this.#d.endpointChanged(e.orgId, e.name, null);
  }

  #run(baseUrl: string, key: string | null): Promise<ComplianceReport> {
    const s = this.#d.settings;
    return testEndpoint(baseUrl, key, this.#d.outbound, s.testTimeoutMs, !s.allowInternalAddresses);
  }

  #key(e: CustomEndpoint): string | null {
    return e.keySealed === null ? null : unseal(e.keySealed, this.#d.masterKey, sealContext.endpointKey(e.orgId, e.name));
  }

  #publish(e: CustomEndpoint, key: string | null): void {
    this.#d.endpointChanged(e.orgId, e.name, {
      name: e.name, baseUrl: e.baseUrl, key, compliant: e.compliance.status === 'compliant', publicOnly: !this.#d.settings.allowInternalAddresses,
    });
  }

  async #inOrg(orgId: string, id: string): Promise<CustomEndpoint> {
    const e = await this.#d.endpoints.find(id);
    if (!e || e.orgId !== orgId) throw notInOrg();
    return e;
  }
}

const notInOrg = () => errors.notFound('No such endpoint in this organisation');
