/** The label value that stands for the codes past the cap (and for models and providers outside the catalog). */
export const OTHER = 'other';

/** Distinct error codes given a label of their own; enough for the catalog's codes and the providers' own. */
export const MAX_CODES = 200;

/**
 * Error codes as label values, bounded: the gateway's codes are a fixed set, but a provider's
 * 4xx code is passed through as the request's code, and an org's registered endpoint can answer
 * with any short token it likes. The first MAX_CODES distinct codes keep their name, later ones
 * are counted as `other`, so no caller can grow the series without bound.
 */
export class CodeLabels {
  readonly #named = new Set<string>();

  /** The label for `code` ('' for none); consulted only when a new label set is made, not per request. */
  label(code: string | null): string {
    if (code === null) return '';
    if (this.#named.has(code)) return code;
    if (this.#named.size >= MAX_CODES) return OTHER;
    this.#named.add(code);
    return code;
  }
}
