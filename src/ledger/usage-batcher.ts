import { appendFileSync } from 'node:fs';
import type { UsageRecord, UsageSink } from '../domain/usage-record.js';
import type { Logger } from '../lib/logger.js';
import { decodeBatch, UsageBatchBuilder, type EncodedBatch } from './usage-batch.js';
import { WriterThread } from './writer-thread.js';

export interface BatcherOptions {
  dbPath: string;
  /** Rows per batch: a full batch is flushed at once. */
  batchSize: number;
  /** A partial batch waits at most this long. */
  flushMs: number;
  /** Batches handed to the writer and not yet committed; at this many, the gate refuses new requests. */
  maxInFlight: number;
  log: Logger;
  /** Where a batch goes if the writer keeps failing, so that no record is dropped. */
  deadLetterPath: string;
}

const WORKER = new URL('./ledger-worker.js', import.meta.url);
const RETRIES = 5;

/**
 * Collects usage records on the main thread and hands them to the ledger writer (one worker
 * thread) in batches, by size or after a few milliseconds. The data plane never waits on
 * it: record() only appends. Bounded: while maxInFlight batches are uncommitted, saturated is
 * true and the gate sheds new requests with 503, so nothing is ever silently dropped.
 */
export class UsageBatcher implements UsageSink {
  readonly #o: BatcherOptions;
  readonly #writer: WriterThread;
  readonly #buf = new UsageBatchBuilder();
  #ticker: NodeJS.Timeout | null = null;
  #inFlight = 0;
  #idle: (() => void)[] = [];
  written = 0;

  constructor(o: BatcherOptions) {
    this.#o = o;
    this.#writer = new WriterThread(WORKER, { dbPath: o.dbPath });
  }

  get saturated(): boolean {
    return this.#inFlight >= this.#o.maxInFlight;
  }

  /** Records appended but not yet committed by the writer. */
  get pending(): number {
    return this.#buf.count + this.#inFlight * this.#o.batchSize;
  }

  record(r: UsageRecord): void {
    this.#buf.add(r);
    if (this.#buf.count >= this.#o.batchSize) this.flush();
    else this.#ticker ??= setInterval(this.#tick, this.#o.flushMs);
  }

  /**
   * A partial batch is flushed at the next tick of an interval that runs while records arrive and
   * stops at the first tick with none, so it waits at most flushMs. Arming and clearing a timeout
   * per batch cost ~1.3k instructions a request at one connection under callgrind (a batch every
   * ~15 requests, and timer code that runs too rarely to be optimised; bench:instructions).
   */
  readonly #tick = (): void => {
    if (this.#buf.count > 0) {
      this.flush();
      return;
    }
    clearInterval(this.#ticker!);
    this.#ticker = null;
  };

  flush(): void {
    if (this.#buf.count === 0) return;
    const batch = this.#buf.take();
    this.#inFlight++;
    void this.#write(batch, 0);
  }

  async #write(batch: EncodedBatch, attempt: number): Promise<void> {
    try {
      // Cloned, not transferred: a retry needs the batch again. Cloning is one copy of the
      // numbers and of the distinct strings, where structured-cloning row arrays cost the main
      // thread ~7 µs a row (piscina postTask in profiles).
      this.written += await this.#writer.run(batch);
    } catch (e) {
      if (attempt < RETRIES) {
        this.#o.log.warn('ledger batch failed; retrying', { rows: batch.count, attempt, err: String(e) });
        await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
        return this.#write(batch, attempt + 1);
      }
      this.#o.log.error('ledger batch failed repeatedly; written to the dead-letter file', { rows: batch.count, file: this.#o.deadLetterPath, err: String(e) });
      appendFileSync(this.#o.deadLetterPath, decodeBatch(batch).map((r) => JSON.stringify(r)).join('\n') + '\n');
    }
    this.#inFlight--;
    // A drain in progress takes records that arrived meanwhile now, not after flushMs.
    if (this.#idle.length > 0 && this.#buf.count > 0) this.flush();
    else if (this.#inFlight === 0 && this.#buf.count === 0) for (const f of this.#idle.splice(0)) f();
  }

  /** Flushes what is buffered and resolves once the writer has committed everything. */
  async drain(): Promise<void> {
    this.flush();
    if (this.#inFlight === 0) return;
    await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  async close(): Promise<void> {
    await this.drain();
    if (this.#ticker !== null) clearInterval(this.#ticker);
    this.#ticker = null;
    await this.#writer.close();
  }
}
