import { errors } from '../errors/catalog.js';
import type { DetectorId, GuardrailPolicy } from '../lib/guardrail-policy.js';
import { findAll, redacted } from './text-scan.js';

/** The answer header that tells the client what its guardrails did: `redacted=aadhaar,pan`, `blocked=card`. */
export const GUARDRAILS_HEADER = 'x-gw-guardrails';

/**
 * One request's guardrail at work: applies its policy to each text it is given and remembers
 * which detectors fired, for the answer header and the ledger. A blocking detector's match
 * throws 400 guardrail_blocked once the text is read (`blocked` says which, for the ledger).
 */
export class Guard {
  readonly policy: GuardrailPolicy;
  /** Every detector the policy uses, blocking ones first. */
  readonly #ids: readonly DetectorId[];
  readonly #redacted = new Set<DetectorId>();
  blocked: DetectorId | null = null;

  constructor(policy: GuardrailPolicy) {
    this.policy = policy;
    this.#ids = [...policy.block, ...policy.redact];
  }

  /** `text` with the policy's redactions made; throws guardrail_blocked for a blocking detector's match. */
  text(text: string, where: 'request' | 'answer' = 'request'): string {
    const found = findAll(text, this.#ids);
    if (found.length === 0) return text;
    for (const f of found) {
      if (this.policy.block.includes(f.id)) {
        this.blocked = f.id;
        throw errors.guardrailBlocked(f.id, where);
      }
    }
    for (const f of found) this.#redacted.add(f.id);
    return redacted(text, found);
  }

  /**
   * `cut` moved back to the start of a match that crosses it, so that text sent up to the cut
   * never carries half an identifier (the stream guard's carry-over keeps the rest).
   */
  cutBefore(text: string, cut: number): number {
    for (const f of findAll(text, this.#ids)) {
      if (f.start >= cut) break;
      if (f.end > cut) return f.start;
    }
    return cut;
  }

  /** Whether anything has been redacted so far. */
  get redacted(): boolean {
    return this.#redacted.size > 0;
  }

  /** What fired, as the answer header and the ledger's `guardrail` column give it; null when nothing did. */
  summary(): string | null {
    if (this.blocked !== null) return `blocked=${this.blocked}`;
    if (this.#redacted.size === 0) return null;
    return `redacted=${this.policy.redact.filter((d) => this.#redacted.has(d)).join(',')}`;
  }
}
