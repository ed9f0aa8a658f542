import { parentPort, workerData } from 'node:worker_threads';
import type { UsageTuple } from '../domain/usage-record.js';
import { connectPostgres, type Pg } from '../store/postgres/pg-database.js';
import { postgresUsageBatchWriter } from '../store/postgres/pg-usage.js';
import { decodeBatch } from './usage-batch.js';
import type { LedgerBatch } from './ledger-batch.js';
import type { WriterReply } from './writer-thread.js';

// The ledger's writer on PostgreSQL: one connection, one transaction per batch, answered in the
// order the batches came (each waits for the one before, as the SQLite writer's do). In this
// thread rather than the main one: decoding, the driver's encoding of 27 column arrays and the
// wire protocol then cost the main thread nothing (docs/benchmarks.md, issue 19).
const { url, writeTimeoutMs } = workerData as { url: string; writeTimeoutMs: number };

let sql: Pg;
let write: (rows: UsageTuple[], batchId: string) => Promise<number>;
function open(): void {
  sql = connectPostgres(url, { max: 1, connectTimeoutSeconds: Math.max(1, Math.ceil(writeTimeoutMs / 1000)) });
  write = postgresUsageBatchWriter(sql);
}
open();

/**
 * The driver does not fail a query while the server refuses connections: it reconnects, with
 * backoff, for as long as it takes. A batch not committed within writeTimeoutMs is answered as
 * failed (and spooled), and the pool is replaced, which ends the old one's queued transaction.
 * That transaction may still have committed; the batch id makes its replay a no-op.
 */
async function writeWithin(rows: UsageTuple[], id: string): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const attempt = write(rows, id);
  attempt.catch(() => {});
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`PostgreSQL did not commit the batch within ${writeTimeoutMs} ms`), { code: 'WRITE_TIMEOUT' })), writeTimeoutMs);
  });
  try {
    return await Promise.race([attempt, timeout]);
  } catch (e) {
    if ((e as { code?: string }).code === 'WRITE_TIMEOUT') {
      const old = sql;
      open();
      void old.end({ timeout: 0 }).catch(() => {});
    }
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

let last: Promise<void> = Promise.resolve();
parentPort!.on('message', (m: LedgerBatch) => {
  last = last.then(async () => {
    let reply: WriterReply;
    try {
      reply = { written: await writeWithin('batch' in m ? decodeBatch(m.batch) : m.rows, m.id) };
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      const code = (err as { code?: unknown }).code;
      reply = { error: { name: err.name, message: err.message, code: typeof code === 'string' ? code : undefined } };
    }
    parentPort!.postMessage(reply);
  });
});
