import { workerData } from 'node:worker_threads';
import { openDatabase } from '../store/database.js';
import { usageBatchWriter } from '../store/usage.js';
import { decodeBatch, type EncodedBatch } from './usage-batch.js';

// The ledger's single writer: one connection, one transaction per batch.
const db = openDatabase((workerData as { dbPath: string }).dbPath);
const write = usageBatchWriter(db);

/** Takes a batch as UsageBatcher encoded it and commits it. */
export default function writeBatch(batch: EncodedBatch): number {
  return write(decodeBatch(batch));
}
