import { appendFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { UsageRecord, UsageSink } from '../domain/usage-record.js';
import type { Logger } from '../lib/logger.js';
import { isBatchFault } from './ledger-batch.js';
import { LedgerSpool } from './ledger-spool.js';
import { decodeBatch, UsageBatchBuilder, type EncodedBatch } from './usage-batch.js';
import { WriterThread } from './writer-thread.js';

/** Where the ledger is written: the SQLite file, or a PostgreSQL server (with a local spool for when it is unreachable). */
export type LedgerStore =
  | { kind: 'sqlite'; path: string }
  | {
    kind: 'postgres';
    url: string;
    /** Batches PostgreSQL could not take wait here, one JSON line each, until it answers again. */
    spoolPath: string;
    /** While batches are spooled, how often PostgreSQL is tried again (default 1,000 ms). */
    replayMs?: number;
    /** A batch not committed within this long is spooled (default 5,000 ms): the driver itself waits out an outage. */
    writeTimeoutMs?: number;
    /** The spool's bound: at this size the batcher is saturated (new requests 503) rather than fill the disk. */
    maxSpoolBytes?: number;
  };

export interface BatcherOptions {
  /** The SQLite database, when `store` is not given. */
  dbPath?: string;
  store?: LedgerStore;
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
const PG_WORKER = new URL('./ledger-pg-worker.js', import.meta.url);
const RETRIES = 5;

/**
 * Collects usage records on the main thread and hands them to the ledger writer (one worker
 * thread) in batches, by size or after a few milliseconds. The data plane never waits on
 * it: record() only appends. Bounded: while maxInFlight batches are uncommitted, saturated is
 * true and the gate sheds new requests with 503, so nothing is ever silently dropped.
 *
 * On PostgreSQL, a batch the server does not take (unreachable, shutting down) is spooled to a
 * local file at once and the batcher keeps spooling, without trying the server per batch, until
 * a replay of the spool goes through: the gate stays open through an outage, and each batch's id
 * keeps a replayed batch whose first commit did go through from being written twice.
 */
export class UsageBatcher implements UsageSink {
  readonly #o: BatcherOptions;
  readonly #writer: WriterThread;
  /** PostgreSQL only. */
  readonly #spool: LedgerSpool | null = null;
  readonly #buf = new UsageBatchBuilder();
  #ticker: NodeJS.Timeout | null = null;
  #inFlight = 0;
  #idle: (() => void)[] = [];
  written = 0;
  /** Told how long each batch took from the hand-over to its commit (or its spooling); set by the metrics. */
  onWritten: ((ms: number) => void) | null = null;

  constructor(o: BatcherOptions) {
    this.#o = o;
    const store = o.store ?? { kind: 'sqlite', path: o.dbPath! };
    if (store.kind === 'sqlite') {
      this.#writer = new WriterThread(WORKER, { dbPath: store.path });
      return;
    }
    this.#writer = new WriterThread(PG_WORKER, { url: store.url, writeTimeoutMs: store.writeTimeoutMs ?? 5_000 });
    this.#spool = new LedgerSpool({
      path: store.spoolPath, replayMs: store.replayMs ?? 1_000, maxBytes: store.maxSpoolBytes, log: o.log, writer: this.#writer,
      deadLetter: (rows) => this.#deadLetter(rows, 'a spooled batch was refused by PostgreSQL'),
      written: (n) => { this.written += n; },
    });
  }

  get saturated(): boolean {
    return this.#inFlight >= this.#o.maxInFlight || this.#spool?.full === true;
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
    const t0 = performance.now();
    if (this.#spool === null) void this.#write(batch, 0, t0);
    else void this.#writePg(batch, randomUUID(), t0);
  }

  /** Batches spooled and not yet replayed into PostgreSQL (0 on SQLite). */
  get spooled(): number {
    return this.#spool?.batches ?? 0;
  }

  async #writePg(batch: EncodedBatch, id: string, t0: number): Promise<void> {
    const spool = this.#spool!;
    if (spool.active) spool.add({ id, rows: decodeBatch(batch) });
    else {
      try {
        this.written += await this.#writer.run({ id, batch });
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (isBatchFault(code)) this.#deadLetter(decodeBatch(batch), `PostgreSQL refused the batch (${code})`, e);
        else {
          this.#o.log.warn('ledger: PostgreSQL did not take a batch; spooled until it answers', { rows: batch.count, file: spool.path, err: String(e) });
          spool.add({ id, rows: decodeBatch(batch) });
        }
      }
    }
    this.onWritten?.(performance.now() - t0);
    this.#settled();
  }

  #deadLetter(rows: unknown[], why: string, e?: unknown): void {
    this.#o.log.error(`ledger: ${why}; written to the dead-letter file`, { rows: rows.length, file: this.#o.deadLetterPath, err: String(e) });
    appendFileSync(this.#o.deadLetterPath, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }

  async #write(batch: EncodedBatch, attempt: number, t0: number): Promise<void> {
    try {
      // Cloned, not transferred: a retry needs the batch again. Cloning is one copy of the
      // numbers and of the distinct strings, where structured-cloning row arrays cost the main
      // thread ~7 µs a row (piscina postTask in profiles).
      this.written += await this.#writer.run(batch);
    } catch (e) {
      if (attempt < RETRIES) {
        this.#o.log.warn('ledger batch failed; retrying', { rows: batch.count, attempt, err: String(e) });
        await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
        return this.#write(batch, attempt + 1, t0);
      }
      this.#o.log.error('ledger batch failed repeatedly; written to the dead-letter file', { rows: batch.count, file: this.#o.deadLetterPath, err: String(e) });
      appendFileSync(this.#o.deadLetterPath, decodeBatch(batch).map((r) => JSON.stringify(r)).join('\n') + '\n');
    }
    this.onWritten?.(performance.now() - t0);
    this.#settled();
  }

  #settled(): void {
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

  /**
   * Commits everything (on PostgreSQL, replays the spool once more); what PostgreSQL could not
   * take stays in the spool file, which the next start replays.
   */
  async close(): Promise<void> {
    await this.drain();
    if (this.#ticker !== null) clearInterval(this.#ticker);
    this.#ticker = null;
    if (this.#spool !== null) await this.#spool.close();
    await this.#writer.close();
  }
}
