import type { Catalog, Provider } from '../../catalog/catalog.js';
import type { Config } from '../../config/schema.js';
import type { ByokKeyStore, SavedByokKey } from '../../domain/stores/byok-key-store.js';
import { errors } from '../../errors/catalog.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { maskSecret, seal, sealContext, unseal } from '../../lib/secret-box.js';
import type { DataplaneNotifier } from '../control-deps.js';
import type { ProxyDispatchers } from '../proxy-dispatchers.js';
import { checkKeyShape, cleanLabel, takesSavedKeys } from './byok-rules.js';
import { checkProviderKey, type KeyCheck } from './provider-key-check.js';

export interface ByokServiceDeps {
  byokKeys: ByokKeyStore;
  catalog: Catalog;
  clock: Clock;
  log: Logger;
  /** Seals the saved keys at rest (AES-256-GCM). */
  masterKey: Buffer;
  /** The live checks' calls to providers, through the forward proxy. */
  outbound: ProxyDispatchers;
  settings: Readonly<Config['byok']>;
  /** Tells the data plane that an org's key for a provider was saved or removed. */
  orgKeyChanged: DataplaneNotifier['orgKeyChanged'];
}

export interface SaveKeyInput {
  key: string;
  label?: string | null;
  alwaysUse?: boolean;
}

/**
 * An org's own provider keys (spec 4.5). A key is checked live against the provider's model
 * list, sealed with the master key and reaches the data plane at once: `provider/model-id`
 * requests use it without `upstream_key`, and with `always_use` every call to that provider
 * does. Requests served on it are not debited. Off (byok.enabled false), every call is 503.
 */
export class ByokService {
  readonly #d: ByokServiceDeps;

  constructor(deps: ByokServiceDeps) {
    this.#d = deps;
  }

  /** At start (when enabled): every org's saved keys to the data plane, but those that do not open. */
  /** Another instance saved or removed the org's key for `provider`: this one's data plane takes it as saved. */
  async republish(orgId: string, provider: string): Promise<void> {
    const d = this.#d;
    if (!d.settings.enabled) return;
    const k = await d.byokKeys.find(orgId, provider);
    if (!k) {
      d.orgKeyChanged(orgId, provider, null);
      return;
    }
    try {
      d.orgKeyChanged(orgId, provider, { key: this.#open(k), alwaysUse: k.alwaysUse });
    } catch {
      d.log.warn('saved provider key does not open with this master key; skipped (every instance needs the same GW_MASTER_KEY)', { org: orgId, provider });
    }
  }

  async publishAll(): Promise<void> {
    const d = this.#d;
    if (!d.settings.enabled) return;
    for (const k of await d.byokKeys.all()) {
      let key: string;
      try {
        key = this.#open(k);
      } catch {
        // Sealed under another master key (GW_MASTER_KEY changed): unusable until saved again.
        d.log.warn('saved provider key does not open with this master key; skipped', { org: k.orgId, provider: k.provider });
        continue;
      }
      d.orgKeyChanged(k.orgId, k.provider, { key, alwaysUse: k.alwaysUse });
    }
  }

  /** Every provider that takes a saved key, with the org's if any. */
  async providers(orgId: string): Promise<{ provider: Provider; saved: SavedByokKey | null }[]> {
    this.#enabled();
    const mine = new Map((await this.#d.byokKeys.list(orgId)).map((k) => [k.provider, k]));
    return [...this.#d.catalog.providers.values()].filter(takesSavedKeys).map((p) => ({ provider: p, saved: mine.get(p.id) ?? null }));
  }

  /** Saves the org's key for a provider once the provider accepts it (400 bad_key when refused, 503 when it cannot say). */
  async save(orgId: string, providerId: string, input: SaveKeyInput): Promise<SavedByokKey> {
    const d = this.#d;
    const provider = this.#provider(providerId);
    checkKeyShape(provider, input.key);
    const label = cleanLabel(input.label);
    const check = await this.#check(provider, input.key);
    if (check.result !== 'ok') {
      throw check.result === 'rejected' ? errors.badKey(`${check.message}; nothing was saved`)
        : errors.serviceUnavailable(`Could not check the key: ${check.message}; nothing was saved`);
    }
    const alwaysUse = input.alwaysUse ?? false;
    const saved = await d.byokKeys.save({
      orgId, provider: provider.id, keySealed: seal(input.key, d.masterKey, sealContext.providerKey(orgId, provider.id)), keyHint: maskSecret(input.key),
      label, alwaysUse, models: check.models,
    }, d.clock.now());
    d.orgKeyChanged(orgId, provider.id, { key: input.key, alwaysUse });
    return saved;
  }

  /** Checks the saved key against the provider now; a passing check refreshes its model list. */
  async check(orgId: string, providerId: string): Promise<{ provider: string; check: KeyCheck; checkedAt: number }> {
    const d = this.#d;
    const provider = this.#provider(providerId);
    const check = await this.#check(provider, this.#open(await this.#saved(orgId, provider)));
    const now = d.clock.now();
    if (check.result === 'ok') await d.byokKeys.markVerified(orgId, provider.id, check.models, now);
    return { provider: provider.id, check, checkedAt: now };
  }

  /** The models the provider listed for the saved key at its last passing check. */
  async models(orgId: string, providerId: string): Promise<{ provider: string; models: string[] }> {
    const provider = this.#provider(providerId);
    return { provider: provider.id, models: (await this.#saved(orgId, provider)).models };
  }

  /** Removes the saved key: the provider is called with the platform key again. */
  async remove(orgId: string, providerId: string): Promise<string> {
    const provider = this.#provider(providerId);
    if (!await this.#d.byokKeys.delete(orgId, provider.id)) throw errors.notFound(`No saved key for '${provider.id}'`);
    this.#d.orgKeyChanged(orgId, provider.id, null);
    return provider.id;
  }

  #enabled(): void {
    if (!this.#d.settings.enabled) throw errors.byokDisabled();
  }

  #provider(id: string): Provider {
    this.#enabled();
    const p = this.#d.catalog.providers.get(id);
    if (!p || !takesSavedKeys(p)) throw errors.unknownProvider(id);
    return p;
  }

  async #saved(orgId: string, provider: Provider): Promise<SavedByokKey> {
    const k = await this.#d.byokKeys.find(orgId, provider.id);
    if (!k) throw errors.notFound(`No saved key for '${provider.id}'`);
    return k;
  }

  #open(k: SavedByokKey): string {
    return unseal(k.keySealed, this.#d.masterKey, sealContext.providerKey(k.orgId, k.provider));
  }

  #check(provider: Provider, key: string): Promise<KeyCheck> {
    return checkProviderKey(provider, key, this.#d.outbound, this.#d.settings.verifyTimeoutMs);
  }
}
