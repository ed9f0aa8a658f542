import { appendFileSync, existsSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import type { UsageTuple } from '../domain/usage-record.js';
import type { Logger } from '../lib/logger.js';
import { isBatchFault, type SpooledBatch } from './ledger-batch.js';
import type { WriterThread } from './writer-thread.js';

export interface SpoolOptions {
  path: string;
  /** Past this many bytes on disk the spool is full (the batcher then sheds requests); unset: no bound. */
  maxBytes?: number;
  /** How often the spool is replayed while it holds batches. */
  replayMs: number;
  log: Logger;
  writer: WriterThread;
  /** A spooled batch PostgreSQL refuses for its own values: kept for a person to look at. */
  deadLetter(rows: UsageTuple[]): void;
  /** Rows a replay committed. */
  written(n: number): void;
}

/**
 * The PostgreSQL ledger's spool: batches the server did not take, one JSON line each ({id, rows}),
 * appended as they fail and replayed in order, by id, when it answers again. A replay first
 * renames the file (batches spooled meanwhile start a new one), commits its batches one by one,
 * and removes it once all are in; a replay cut short keeps the batches not yet committed. A
 * batch replayed twice (the process died mid-replay, or a commit's answer was lost) is
 * recognised by its id and not written again. Whatever is spooled at exit is replayed by the
 * next start.
 */
export class LedgerSpool {
  readonly path: string;
  readonly #replaying: string;
  readonly #o: SpoolOptions;
  #active = false;
  /** Batches in the spool files. */
  batches = 0;
  /** Bytes in the spool files. */
  #bytes = 0;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<boolean> | null = null;

  constructor(o: SpoolOptions) {
    this.#o = o;
    this.path = o.path;
    this.#replaying = `${o.path}.replaying`;
    const left = lines(this.#replaying).length + lines(this.path).length;
    this.#bytes = this.#measure();
    if (left > 0) {
      this.batches = left;
      this.#activate();
    }
  }

  /** Batches are being spooled: new ones go straight to the file until a replay empties it. */
  get active(): boolean {
    return this.#active;
  }

  /** At its bound: the batcher sheds requests until a replay makes room (rows are never dropped). */
  get full(): boolean {
    return this.#o.maxBytes !== undefined && this.#bytes >= this.#o.maxBytes;
  }

  add(b: SpooledBatch): void {
    const line = `${JSON.stringify(b)}\n`;
    appendFileSync(this.path, line);
    this.#bytes += Buffer.byteLength(line);
    this.batches++;
    this.#activate();
  }

  /** Replays the spool; resolves true once it is empty (a replay under way is shared). */
  replay(): Promise<boolean> {
    this.#running ??= this.#replayAll().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /** Stops retrying after one last replay; what it could not commit stays on disk. */
  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    if (this.#active) await this.replay();
    else await this.#running;
  }

  #measure(): number {
    return sizeOf(this.path) + sizeOf(this.#replaying);
  }

  #activate(): void {
    this.#active = true;
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.replay(), this.#o.replayMs);
    this.#timer.unref();
  }

  async #replayAll(): Promise<boolean> {
    for (;;) {
      if (!existsSync(this.#replaying)) {
        // Both checks and the switch back happen in one turn of the event loop: no batch can be
        // spooled between them and left behind.
        if (!existsSync(this.path)) {
          this.#active = false;
          this.batches = 0;
          this.#bytes = 0;
          if (this.#timer !== null) clearInterval(this.#timer);
          this.#timer = null;
          return true;
        }
        renameSync(this.path, this.#replaying);
      }
      const pending = lines(this.#replaying);
      for (let i = 0; i < pending.length; i++) {
        let b: SpooledBatch;
        try {
          b = JSON.parse(pending[i]) as SpooledBatch;
        } catch {
          // A line cut short by a crash while it was appended: its batch was never committed
          // either, and is the "last flush window" a kill -9 may lose.
          this.#o.log.error('ledger spool: a torn line is skipped', { file: this.#replaying, line: pending[i].slice(0, 80) });
          continue;
        }
        try {
          this.#o.written(await this.#o.writer.run({ id: b.id, rows: b.rows }));
        } catch (e) {
          const code = (e as { code?: string }).code;
          if (isBatchFault(code)) {
            this.#o.deadLetter(b.rows);
          } else {
            // Still unreachable: keep what is left (written aside and renamed, so a crash now
            // leaves either the whole old file or the whole new one).
            writeFileSync(`${this.#replaying}.tmp`, pending.slice(i).map((l) => `${l}\n`).join(''));
            renameSync(`${this.#replaying}.tmp`, this.#replaying);
            this.#bytes = this.#measure();
            this.#o.log.warn('ledger spool: PostgreSQL still does not take batches', { left: pending.length - i, err: String(e) });
            return false;
          }
        }
        this.batches = Math.max(0, this.batches - 1);
      }
      unlinkSync(this.#replaying);
      this.#bytes = this.#measure();
      this.#o.log.info('ledger spool: replayed into PostgreSQL', { batches: pending.length });
    }
  }
}

function sizeOf(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

function lines(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.length > 0);
}
