import { Worker } from 'node:worker_threads';
import type { LedgerBatch } from './ledger-batch.js';
import type { EncodedBatch } from './usage-batch.js';

/** What the writer thread answers for each batch, in the order the batches were sent (code: PostgreSQL's SQLSTATE or the driver's). */
export type WriterReply = { written: number } | { error: { name: string; message: string; code?: string } };

interface Pending {
  resolve: (written: number) => void;
  reject: (e: Error) => void;
}

/**
 * The ledger's writer thread: batches go to it with postMessage and it answers each, in order.
 * A thread that dies fails the batches it held and is started again for the next one. In place
 * of a piscina pool of one: piscina's task bookkeeping (async resource, queue, run-time
 * histograms, usage checks) cost the main thread ~90k instructions a batch, which at one
 * connection under callgrind (a batch every ~12 requests) was ~7k a request (bench:instructions).
 */
export class WriterThread {
  readonly #file: URL;
  readonly #workerData: unknown;
  #worker: Worker | null = null;
  readonly #pending: Pending[] = [];

  constructor(file: URL, workerData: unknown) {
    this.#file = file;
    this.#workerData = workerData;
    this.#start();
  }

  /** Commits one batch; resolves with the rows written, rejects with the writer's error. */
  run(batch: EncodedBatch | LedgerBatch): Promise<number> {
    const w = this.#worker ?? this.#start();
    return new Promise((resolve, reject) => {
      if (this.#pending.length === 0) w.ref();
      this.#pending.push({ resolve, reject });
      // Cloned, not transferred: a retry needs the batch again.
      w.postMessage(batch);
    });
  }

  async close(): Promise<void> {
    const w = this.#worker;
    this.#worker = null;
    if (w !== null) await w.terminate();
  }

  #start(): Worker {
    const w = new Worker(this.#file, { workerData: this.#workerData });
    // Idle, the writer does not keep the process alive (as piscina's did not).
    w.unref();
    w.on('message', (reply: WriterReply) => {
      const p = this.#pending.shift();
      if (this.#pending.length === 0) w.unref();
      if (p === undefined) return;
      if ('written' in reply) p.resolve(reply.written);
      else p.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name, code: reply.error.code }));
    });
    w.on('error', (e) => this.#died(w, e));
    w.on('exit', (code) => this.#died(w, new Error(`ledger writer thread exited (code ${code})`)));
    this.#worker = w;
    return w;
  }

  /** Fails what the thread held; the next batch starts a new one. */
  #died(w: Worker, e: Error): void {
    if (this.#worker !== w) return;
    this.#worker = null;
    for (const p of this.#pending.splice(0)) p.reject(e);
  }
}
