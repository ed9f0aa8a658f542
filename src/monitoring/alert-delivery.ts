import { createHmac } from 'node:crypto';
import { fetch } from 'undici';
import type { Config } from '../config/schema.js';
import type { ProxyDispatchers } from '../control/proxy-dispatchers.js';
import { blockedReason } from '../lib/address-guard.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Mailer } from '../lib/mailer.js';
import { sealContext, unseal } from '../lib/secret-box.js';
import type { DeliveryRow, MonitorStore } from '../domain/stores/monitor-store.js';
import type { AlertRow } from '../domain/stores/monitoring-store.js';

/** A delivery is tried this many times: once, then after 1, 5 and 25 times monitoring.retryBaseMs. */
const ATTEMPTS = 4;
/**
 * How long a claimed delivery is this instance's beyond its attempt's own timeout (a webhook's is
 * monitoring.canaryTimeoutMs): only an instance that dies mid-delivery leaves a claim to expire,
 * and its delivery is then made by another after this long.
 */
const LEASE_MARGIN_MS = 60_000;
/** The longest the queue sleeps without looking, should a wake-up be missed. */
const IDLE_MS = 60_000;

type Attempt = { ok: true; outcome: string } | { ok: false; error: string; final: boolean };

export interface AlertDeliveryDeps {
  store: MonitorStore;
  config: Readonly<Config>;
  clock: Clock;
  log: Logger;
  masterKey: Buffer;
  outbound: ProxyDispatchers;
  /** Null without a relay: email alerts then fail at once, not worth a retry. */
  mailer: Mailer | null;
}

/**
 * The alert outbox: each change of an alert (firing, resolved) is written to the database and
 * delivered from there, so a restart resumes pending deliveries and retries instead of losing
 * them. An alert's changes go out in order; a webhook is a JSON POST signed with HMAC-SHA256 in
 * `x-gw-signature`, a mail goes through the SMTP relay, and either is tried four times with
 * growing waits before it is given up. Several instances may drain one outbox: each delivery is
 * claimed by one of them before it is attempted, so it is made once.
 */
export class AlertDelivery {
  readonly #d: AlertDeliveryDeps;
  readonly #abort = new AbortController();
  #timer: NodeJS.Timeout | null = null;
  #pass: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(d: AlertDeliveryDeps) {
    this.#d = d;
  }

  /** Resumes what a previous run left queued. */
  start(): void {
    this.#kick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    // A webhook in flight is cut; its row stays queued, unattempted, for the next start.
    this.#abort.abort();
    await this.#pass;
  }

  /** Looks for due deliveries now (one was just queued). */
  wake(): void {
    this.#kick();
  }

  #kick(): void {
    if (this.#stopped) return;
    if (this.#pass !== null) {
      this.#again = true;
      return;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#pass = this.#drain()
      .catch((e: unknown) => this.#d.log.error('alert delivery failed', { err: String(e) }))
      .finally(() => {
        this.#pass = null;
        if (this.#again) {
          this.#again = false;
          this.#kick();
        } else this.#sleep();
      });
  }

  #sleep(): void {
    if (this.#stopped) return;
    void this.#d.store.nextDeliveryAt().then((next) => {
      if (this.#stopped || this.#pass !== null) return;
      const wait = next === null ? IDLE_MS : Math.min(IDLE_MS, Math.max(0, next - this.#d.clock.now()));
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.#kick(), wait);
      this.#timer.unref();
    }, (e: unknown) => {
      if (this.#stopped || this.#pass !== null) return;
      this.#d.log.error('alert delivery: the outbox could not be read', { err: String(e) });
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.#kick(), IDLE_MS);
      this.#timer.unref();
    });
  }

  async #drain(): Promise<void> {
    const { store, clock, config } = this.#d;
    const lease = config.monitoring.canaryTimeoutMs + LEASE_MARGIN_MS;
    while (!this.#stopped) {
      const now = clock.now();
      const row = await store.claimDelivery(now, now + lease);
      if (row === null) return;
      const alert = await store.findAlert(row.alert_id);
      if (alert === null) continue; // deleted meanwhile: its deliveries went with it
      const r = await this.#attempt(alert, row);
      if (this.#stopped) {
        // Cut by stop(): given back unattempted, due as it was, for whichever instance runs next.
        await store.releaseDelivery(row.id, row.next_at);
        return;
      }
      const n = row.attempts + 1;
      if (r.ok) await store.finishDelivery(row, n > 1 ? `${r.outcome} (attempt ${n})` : r.outcome);
      else if (r.final || n >= ATTEMPTS) await store.finishDelivery(row, `${row.state} not delivered: ${r.error}${r.final ? '' : ` after ${n} attempt(s)`}`);
      else await store.retryDelivery(row.id, clock.now() + config.monitoring.retryBaseMs * 5 ** (n - 1), r.error);
    }
  }

  /** One try; `final` failures (no relay, a blocked URL) are not worth another. */
  async #attempt(a: AlertRow, row: DeliveryRow): Promise<Attempt> {
    const { config } = this.#d;
    const event = JSON.parse(row.event) as { state: string; metric: string; value: number; threshold: number; collection: { name: string } };
    if (a.target_kind === 'email') {
      const mailer = this.#d.mailer;
      if (mailer === null) return { ok: false, error: 'no SMTP relay is configured', final: true };
      const subject = `[gw] ${event.collection.name}: ${event.metric} ${event.state} (${event.value.toFixed(3)} against ${event.threshold})`;
      try {
        await mailer.send(a.target, subject, JSON.stringify(event, null, 2));
        return { ok: true, outcome: `${row.state} mailed to ${a.target}` };
      } catch (e) {
        return { ok: false, error: (e as Error).message, final: false };
      }
    }
    const url = new URL(a.target);
    // Checked at every attempt, and again by the socket's own lookup: the name may since resolve elsewhere.
    const blocked = await blockedReason(url, config.monitoring.allowInternalWebhooks);
    if (blocked !== null) return { ok: false, error: blocked, final: true };
    const secret = a.secret_sealed === null ? null : unseal(a.secret_sealed, this.#d.masterKey, sealContext.alertSecret(a.id));
    const signature = secret === null ? null : `sha256=${createHmac('sha256', secret).update(row.event).digest('hex')}`;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'gw-monitoring', ...(signature ? { 'x-gw-signature': signature } : {}) },
        body: row.event,
        signal: AbortSignal.any([AbortSignal.timeout(config.monitoring.canaryTimeoutMs), this.#abort.signal]),
        dispatcher: this.#d.outbound.for(url.toString(), !config.monitoring.allowInternalWebhooks),
      });
      await res.body?.cancel();
      if (res.status < 300) return { ok: true, outcome: `${row.state} delivered: ${res.status}` };
      return { ok: false, error: String(res.status), final: false };
    } catch (e) {
      return { ok: false, error: (e as Error).message, final: false };
    }
  }
}
