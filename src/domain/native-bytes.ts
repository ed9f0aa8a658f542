/**
 * A provider's answer bytes as it sent them, for a client that speaks the provider's own format
 * (Anthropic Messages in, the anthropic provider out): the data plane reads the answer through
 * its chat translation for usage, limits and the ledger, while the client is written these bytes
 * untouched (DESIGN.md §6: when the inbound format is the provider's own, bytes pass through).
 */
export class NativeBytes {
  #parts: Buffer[] = [];

  add(chunk: Buffer): void {
    this.#parts.push(chunk);
  }

  /** Every byte added since the last call, or null. */
  drain(): Buffer | null {
    const p = this.#parts;
    if (p.length === 0) return null;
    this.#parts = [];
    return p.length === 1 ? p[0] : Buffer.concat(p);
  }
}
