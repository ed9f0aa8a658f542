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
  /**
   * A character the text must hold for the pattern to match at all ('@' for addresses): a text
   * without it is not scanned, which is most of them (an indexOf is ~30x cheaper than the scan).
   */
  readonly needs?: string;
  /**
   * The capture group that is the finding, the match's tail (`api_key=` is matched, only the
   * value after it redacted); a look-behind would do the same at several times the cost.
   */
  readonly group?: number;
}
