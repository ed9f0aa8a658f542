import type { DetectorId } from '../../lib/guardrail-policy.js';

/**
 * One kind of sensitive text: patterns that find its shape (global, sticky-free regexes whose
 * look-behind keeps them from starting inside a longer run, so a long run costs one attempt,
 * not one per character) and, where the identifier carries one, the check its match must pass.
 */
export interface Detector {
  readonly id: DetectorId;
  readonly patterns: readonly DetectorPattern[];
}

export interface DetectorPattern {
  readonly re: RegExp;
  /** The check a match must pass (a check digit, a holder type); absent when the shape is enough. */
  readonly valid?: (match: string) => boolean;
}
