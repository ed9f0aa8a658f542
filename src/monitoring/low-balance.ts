import type { Config } from '../config/schema.js';
import type { Mailer } from '../lib/mailer.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { BillingStore } from '../domain/stores/billing-store.js';
import type { OrgStore } from '../domain/stores/org-store.js';
import { rupees } from '../lib/money.js';

export interface LowBalanceMailerDeps {
  billing: Pick<BillingStore, 'lowBalanceCrossings' | 'markLowBalanceMailed'>;
  orgs: Pick<OrgStore, 'ownerEmails'>;
  config: Readonly<Config>;
  /** Null without a relay: then nothing is checked. */
  mailer: Mailer | null;
  clock: Clock;
  log: Logger;
  baseUrl: () => string;
}

/**
 * Mails an org's owners when its balance falls below the threshold they set (POST
 * /me/billing/settings): once per crossing, re-armed when a top-up lifts the balance back over
 * it. Balances are compared on a timer, off the request path; a failed mail is tried again on
 * the next round.
 */
export class LowBalanceMailer {
  readonly #d: LowBalanceMailerDeps;
  #timer: NodeJS.Timeout | null = null;
  #round: Promise<void> | null = null;

  constructor(d: LowBalanceMailerDeps) {
    this.#d = d;
  }

  start(): void {
    if (this.#d.mailer === null) return;
    this.#timer = setInterval(() => {
      this.#round ??= this.check().catch((e: unknown) => this.#d.log.error('low-balance check failed', { err: String(e) }))
        .finally(() => (this.#round = null));
    }, this.#d.config.billing.lowBalanceCheckMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#round;
  }

  async check(): Promise<void> {
    const { billing, orgs, mailer, log } = this.#d;
    if (mailer === null) return;
    for (const org of await billing.lowBalanceCrossings()) {
      const to = await orgs.ownerEmails(org.id);
      const subject = `[gw] ${org.name}: balance ${rupees(org.balanceMicros)} is below ${rupees(org.lowBalanceMicros)}`;
      const text = `The prepaid balance of ${org.name} is ${rupees(org.balanceMicros)}, below the ${rupees(org.lowBalanceMicros)} you set.\n`
        + 'Standard keys stop with 402 insufficient_credits when it reaches zero.\n'
        + `Top up at ${this.#d.baseUrl()}/billing (the dashboard). This mail is sent once until the balance is back above the threshold.\n`;
      let sent = 0;
      for (const addr of to) {
        try {
          await mailer.send(addr, subject, text);
          sent++;
        } catch (e) {
          log.warn('low-balance mail not sent', { org: org.id, to: addr, err: (e as Error).message });
        }
      }
      if (sent > 0 || to.length === 0) await billing.markLowBalanceMailed(org.id, this.#d.clock.now());
    }
  }
}
