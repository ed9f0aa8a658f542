import { randomFillSync } from 'node:crypto';

/** Random bytes drawn ahead, enough for 170 ids of 24 bytes. */
const POOL = Buffer.allocUnsafe(4096);
let at = POOL.length;

/**
 * `bytes` random bytes (from the CSPRNG, as randomBytes gives them) as hex, for ids that only
 * need to be unguessable and unique (`resp_…`, `msg_…`). The bytes are drawn 4 KB at a time:
 * one randomBytes(24) call cost ~12,500 instructions under callgrind (OpenSSL's per-call
 * setup), and a translated request makes two or three such ids; from the pool, one costs the
 * hex conversion (bench:instructions, docs/benchmarks.md, issue 17). Node's randomUUID keeps
 * such a pool for the same reason.
 */
export function randomHex(bytes: number): string {
  if (bytes > POOL.length) return randomFillSync(Buffer.allocUnsafe(bytes)).toString('hex');
  if (at + bytes > POOL.length) {
    randomFillSync(POOL);
    at = 0;
  }
  const hex = POOL.toString('hex', at, at + bytes);
  at += bytes;
  return hex;
}
