// Whether any of a run's requests waited for an upstream connection in the gateway, seen two ways:
// GET /health's `upstream.queued` and `busy`, polled while the streams are held, and the ledger's
// `queue_ms` per attempt, read from the gateway's SQLite file once the writer has committed the
// run's rows (slow-streams.bench.ts).
import Database from 'better-sqlite3';
import { percentile } from './stats.js';

export interface GatewayQueue {
  connectionsPerOrigin: number;
  maxQueued: number;
  maxBusy: number;
  /** Most requests in flight over HTTP/2 (upstream.http2), and the sessions carrying them. */
  maxH2Streams: number;
  maxH2Sessions: number;
  polls: number;
  ledgerRows: number;
  maxQueueMs: number;
  waitedRows: number;
  /** The gateway's own time to first byte (ledger ttfb_ms: attempt start to the provider's first chunk), sorted. */
  ledgerTtfb: Float64Array;
}

interface Health {
  upstream: { connections_per_origin: number; open: number; busy: number; queued: number; h2_sessions: number; h2_streams: number };
}

async function health(port: number): Promise<Health> {
  const res = await fetch(`http://127.0.0.1:${port}/health`);
  if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
  return (await res.json()) as Health;
}

function lastRow(dbPath: string): number {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT COALESCE(MAX(rowid), 0) AS m FROM usage').get() as { m: number }).m;
  } finally {
    db.close();
  }
}

/** Started before a run, stopped after it: polls /health every 500 ms, then reads the run's ledger rows. */
export class QueueWatch {
  readonly #port: number;
  readonly #dbPath: string;
  readonly #mark: number;
  readonly #q: GatewayQueue;
  #polling = true;
  #poller: Promise<void> = Promise.resolve();

  private constructor(port: number, dbPath: string, connectionsPerOrigin: number) {
    this.#port = port;
    this.#dbPath = dbPath;
    this.#mark = lastRow(dbPath);
    this.#q = { connectionsPerOrigin, maxQueued: 0, maxBusy: 0, maxH2Streams: 0, maxH2Sessions: 0, polls: 0, ledgerRows: 0, maxQueueMs: 0, waitedRows: 0, ledgerTtfb: new Float64Array(0) };
  }

  static async start(port: number, dbPath: string, log: (msg: string) => void): Promise<QueueWatch> {
    const w = new QueueWatch(port, dbPath, (await health(port)).upstream.connections_per_origin);
    w.#poller = w.#poll(log);
    return w;
  }

  async #poll(log: (msg: string) => void): Promise<void> {
    while (this.#polling) {
      try {
        const h = await health(this.#port);
        this.#q.polls++;
        this.#q.maxQueued = Math.max(this.#q.maxQueued, h.upstream.queued);
        this.#q.maxBusy = Math.max(this.#q.maxBusy, h.upstream.busy);
        this.#q.maxH2Streams = Math.max(this.#q.maxH2Streams, h.upstream.h2_streams);
        this.#q.maxH2Sessions = Math.max(this.#q.maxH2Sessions, h.upstream.h2_sessions);
      } catch (e) {
        log(`/health: ${(e as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** Stops polling and reads the run's rows, once the writer has committed `expected` of them (or after 15 s). */
  async stop(expected: number): Promise<GatewayQueue> {
    this.#polling = false;
    await this.#poller;
    const deadline = Date.now() + 15_000;
    for (;;) {
      const db = new Database(this.#dbPath, { readonly: true, fileMustExist: true });
      try {
        const r = db.prepare('SELECT COUNT(*) AS rows, MAX(queue_ms) AS maxQueueMs, SUM(queue_ms > 0) AS waited FROM usage WHERE rowid > ?')
          .get(this.#mark) as { rows: number; maxQueueMs: number | null; waited: number | null };
        if (r.rows >= expected || Date.now() > deadline) {
          const ttfb = (db.prepare('SELECT ttfb_ms AS t FROM usage WHERE rowid > ? AND ttfb_ms IS NOT NULL').all(this.#mark) as { t: number }[])
            .map((x) => x.t);
          return { ...this.#q, ledgerRows: r.rows, maxQueueMs: r.maxQueueMs ?? 0, waitedRows: r.waited ?? 0, ledgerTtfb: Float64Array.from(ttfb).sort() };
        }
      } finally {
        db.close();
      }
      await new Promise((res) => setTimeout(res, 200));
    }
  }
}

/** One line for the report. */
export function describeQueue(g: GatewayQueue): string {
  const t = g.ledgerTtfb;
  const ms = (v: number): string => (Number.isFinite(v) ? v.toFixed(2) : '-');
  return `gateway upstream pool: connectionsPerOrigin ${g.connectionsPerOrigin} (default), at most ${g.maxBusy} busy and ` +
    `${g.maxQueued} queued, at most ${g.maxH2Streams} HTTP/2 streams on ${g.maxH2Sessions} sessions, over ${g.polls} /health polls; ledger: ${g.ledgerRows} rows, ${g.waitedRows} waited for a connection, ` +
    `max queue_ms ${g.maxQueueMs}; the gateway's own TTFB (ledger ttfb_ms: attempt start to the provider's first chunk) ` +
    `p50 ${ms(percentile(t, 50))}, p99 ${ms(percentile(t, 99))}, max ${ms(t.length > 0 ? t[t.length - 1] : NaN)} ms`;
}
