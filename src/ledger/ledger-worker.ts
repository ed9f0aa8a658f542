import { workerData } from 'node:worker_threads';
import { openDatabase } from '../store/database.js';
import { usageBatchWriter, type UsageTuple } from '../store/usage.js';

// The ledger's single writer: one connection, one transaction per batch.
const db = openDatabase((workerData as { dbPath: string }).dbPath);
const write = usageBatchWriter(db);

/** Takes a batch as the JSON text of its tuples (see UsageBatcher) and commits it. */
export default function writeBatch(json: string): number {
  return write(JSON.parse(json) as UsageTuple[]);
}
