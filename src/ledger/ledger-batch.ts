import type { UsageTuple } from '../domain/usage-record.js';
import type { EncodedBatch } from './usage-batch.js';

/**
 * A batch for the PostgreSQL writer: named by an id given once, when the batch is taken, and
 * kept through retries and the spool, so that a batch whose commit went through but whose
 * answer was lost is recognised when it comes again (ledger_batches) and not written twice.
 * Fresh from the batcher it is still encoded; replayed from the spool file it is rows.
 */
export type LedgerBatch = { id: string; batch: EncodedBatch } | { id: string; rows: UsageTuple[] };

/** A line of the spool file. */
export interface SpooledBatch {
  id: string;
  rows: UsageTuple[];
}

/**
 * Whether a PostgreSQL error is the batch's own fault (a value a column refuses: SQLSTATE
 * classes 22 and 23), which no retry mends, rather than the database's (unreachable, shutting
 * down, out of connections, a schema not migrated yet), which the spool waits out.
 */
export function isBatchFault(code: string | undefined): boolean {
  return code !== undefined && /^2[23][0-9A-Z]{3}$/.test(code);
}
