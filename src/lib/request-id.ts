// Request ids: unique within this process's life (a boot stamp and a counter, base 36), short
// enough for a header and a ledger column, and one string allocation each.
const BOOT = Date.now().toString(36);
let counter = 0;

/** A fresh request id, e.g. `mi5k2x1c-1a`. */
export function nextRequestId(): string {
  return `${BOOT}-${(counter++).toString(36)}`;
}
