import { parentPort, workerData } from 'node:worker_threads';
import { connectPostgres } from '../store/postgres/pg-database.js';
import { postgresUsageBatchWriter } from '../store/postgres/pg-usage.js';
import { decodeBatch } from './usage-batch.js';
import type { LedgerBatch } from './ledger-batch.js';
import type { WriterReply } from './writer-thread.js';

// The ledger's writer on PostgreSQL: one connection, one transaction per batch, answered in the
// order the batches came (each waits for the one before, as the SQLite writer's do). In this
// thread rather than the main one: the decoding, the driver's encoding of 27 column arrays and
// the wire protocol cost the main thread nothing (docs/benchmarks.md, issue 19).
const { url, connectTimeoutSeconds } = workerData as { url: string; connectTimeoutSeconds: number };
const sql = connectPostgres(url, { max: 1, connectTimeoutSeconds });
const write = postgresUsageBatchWriter(sql);

let last: Promise<void> = Promise.resolve();
parentPort!.on('message', (m: LedgerBatch) => {
  last = last.then(async () => {
    let reply: WriterReply;
    try {
      reply = { written: await write('batch' in m ? decodeBatch(m.batch) : m.rows, m.id) };
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      const code = (err as { code?: unknown }).code;
      reply = { error: { name: err.name, message: err.message, code: typeof code === 'string' ? code : undefined } };
    }
    parentPort!.postMessage(reply);
  });
});
