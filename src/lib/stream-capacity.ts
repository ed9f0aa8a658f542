import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';

/**
 * Memory allowed per held upstream stream: the client's socket, the provider's socket, the
 * exchange and the relay. With the provider in clear, bench/held-streams.bench.ts measured 14.1 KiB
 * of RSS per stream with 2,000 held and 10.9 KiB with 4,000, and bench/slow-streams.bench.ts
 * 12.1-15.0 KiB with 2,000 slow streams and 13.0-14.0 KiB with 8,000. Providers are reached over
 * TLS, and each TLS connection keeps OpenSSL's state and buffers for as long as the stream lasts:
 * slow-streams with BENCH_SLOW_TLS=1 measured 57.5-58.8 KiB per stream with 2,000 (nginx, the same
 * way: 44.9-45.8). Twice that leaves room for chunks in flight to a slow client. Two descriptors per
 * stream, measured the same way.
 */
export const HELD_STREAM_BYTES = 128 * 1024;
/** Descriptors kept for everything else: the database and its WAL, listeners, the ledger worker, logs. */
const RESERVED_FDS = 256;
/** The share of the machine's memory held streams may take. */
const MEMORY_SHARE = 0.25;
const FLOOR = 16;
/** Where /proc is missing (macOS): the usual soft limit. */
const UNKNOWN_FD_LIMIT = 1024;

/** The process's soft limit on open files (`ulimit -n`), from /proc/self/limits; null where unreadable. */
export function openFileLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === undefined) return null;
    return soft === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(soft) || null;
  } catch {
    return null;
  }
}

/**
 * The default connectionsPerOrigin: as many streams as the box can hold. Each held stream takes two
 * descriptors (the client's socket and the provider's) and about HELD_STREAM_BYTES, so the bound
 * is the smaller of half the descriptors left after RESERVED_FDS and a quarter of memory. With
 * `ulimit -n` 1024 that is 384; with 65,536, 32,640 unless memory is smaller (under 16 GiB).
 */
export function defaultConnectionsPerOrigin(fdLimit: number | null = openFileLimit(), memoryBytes: number = totalmem()): number {
  const byFds = Math.floor(((fdLimit ?? UNKNOWN_FD_LIMIT) - RESERVED_FDS) / 2);
  const byMemory = Math.floor((memoryBytes * MEMORY_SHARE) / HELD_STREAM_BYTES);
  return Math.max(FLOOR, Math.min(byFds, byMemory));
}
