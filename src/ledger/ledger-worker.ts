import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../store/database.js';
import { usageBatchWriter } from '../store/usage.js';
import { decodeBatch, type EncodedBatch } from './usage-batch.js';
import type { WriterReply } from './writer-thread.js';

// The ledger's single writer: one connection, one transaction per batch, answered in order.
const db = openDatabase((workerData as { dbPath: string }).dbPath);
const write = usageBatchWriter(db);

parentPort!.on('message', (batch: EncodedBatch) => {
  let reply: WriterReply;
  try {
    reply = { written: write(decodeBatch(batch)) };
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    reply = { error: { name: err.name, message: err.message } };
  }
  parentPort!.postMessage(reply);
});
