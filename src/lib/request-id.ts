import { randomInt } from 'node:crypto';

// Request ids: unique across processes (a boot stamp, a random part, a counter, base 36), short
// enough for a header and a ledger column, and one string allocation each. The random part is
// what keeps instances started in the same millisecond (a cluster's, a container set's) apart:
// with the boot stamp alone their ids repeated, and their ledger rows shared request ids.
const PREFIX = `${Date.now().toString(36)}${randomInt(36 ** 6).toString(36).padStart(6, '0')}-`;
let counter = 0;

/** A fresh request id, e.g. `mi5k2x1c0h3zq9-1a`. */
export function nextRequestId(): string {
  return PREFIX + (counter++).toString(36);
}
