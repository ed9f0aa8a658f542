import type { Extensions } from '../domain/extensions.js';
import type { LiteralTable } from '../lib/json-literals.js';
import type { InferenceBody, NativeRequest } from './inference-body.js';

/**
 * A translated request whose long strings are placeholders for the client's literals
 * (lib/json-literals.ts): `literal` is what an adapter that writes JSON sends, the literals copied
 * as they came; `payload`, for everything else that reads the body (a guardrail, an estimate,
 * another provider's translation), is the same with every placeholder decoded, made on first use.
 */
export class LiteralBody implements InferenceBody {
  readonly raw = null;
  readonly literal: { payload: Record<string, unknown>; literals: LiteralTable };
  native?: NativeRequest | null;
  usageAsked?: boolean;
  #payload: Record<string, unknown> | null = null;

  constructor(payload: Record<string, unknown>, literals: LiteralTable, readonly model: string, readonly stream: boolean,
    readonly maxTokens: number | null, readonly bytes: number, readonly ext: Extensions) {
    this.literal = { payload, literals };
  }

  get payload(): Record<string, unknown> {
    return this.#payload ??= this.literal.literals.expand(this.literal.payload);
  }
}
