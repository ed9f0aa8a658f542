import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import type { Registry } from './registry.js';

/** Event-loop delay sampling period: a native timer, no JavaScript runs per sample. */
const LOOP_RESOLUTION_MS = 20;

/**
 * Process and Node.js runtime series with prom-client's standard names, so stock dashboards read
 * them: CPU seconds, resident memory, open file descriptors, heap, event-loop lag (since the last
 * scrape) and active resources (sockets, timers, files…). All read when scraped.
 */
export class ProcessSeries {
  readonly #loop: IntervalHistogram;

  constructor(reg: Registry) {
    this.#loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    this.#loop.enable();
    const user = reg.counter('process_cpu_user_seconds_total', 'User CPU time spent, in seconds.');
    const system = reg.counter('process_cpu_system_seconds_total', 'System CPU time spent, in seconds.');
    const cpu = reg.counter('process_cpu_seconds_total', 'User and system CPU time spent, in seconds.');
    // One reading fills all three; user renders first.
    user.collect = () => {
      const u = process.cpuUsage();
      user.child().set(u.user / 1e6);
      system.child().set(u.system / 1e6);
      cpu.child().set((u.user + u.system) / 1e6);
    };
    const start = reg.gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch, in seconds.');
    start.child().set(Math.round(Date.now() / 1000 - process.uptime()));
    const rss = reg.gauge('process_resident_memory_bytes', 'Resident memory size, in bytes.');
    rss.collect = () => rss.child().set(process.memoryUsage.rss());
    const fds = reg.gauge('process_open_fds', 'Open file descriptors (Linux only: absent elsewhere).');
    fds.collect = () => {
      try {
        fds.child().set(readdirSync('/proc/self/fd').length - 1);
      } catch {
        fds.reset();
      }
    };
    const heapUsed = reg.gauge('nodejs_heap_size_used_bytes', 'V8 heap in use, in bytes.');
    const heapTotal = reg.gauge('nodejs_heap_size_total_bytes', 'V8 heap allocated, in bytes.');
    const external = reg.gauge('nodejs_external_memory_bytes', 'Memory of C++ objects bound to JavaScript (buffers among them), in bytes.');
    heapUsed.collect = () => {
      const m = process.memoryUsage();
      heapUsed.child().set(m.heapUsed);
      heapTotal.child().set(m.heapTotal);
      external.child().set(m.external);
    };
    // By space, as prom-client names it: the young generation ("new") is sized by npm start's flags (docs/operations.md).
    const spaces = reg.gauge('nodejs_heap_space_size_total_bytes', 'V8 heap space allocated, by space (new: the young generation), in bytes.', ['space']);
    spaces.collect = () => {
      for (const s of getHeapSpaceStatistics()) spaces.child(s.space_name.replace(/_space$/, '')).set(s.space_size);
    };
    const lag = reg.gauge('nodejs_eventloop_lag_seconds', 'Event-loop delay since the previous scrape (beyond the 20 ms sampling period), by statistic (mean, p50, p99, max), in seconds.',
      ['stat']);
    lag.collect = () => {
      const h = this.#loop;
      // No sample yet (a scrape within the first period): report nothing rather than NaN.
      if (h.count === 0) return;
      lag.child('mean').set(lateBy(h.mean));
      lag.child('p50').set(lateBy(h.percentile(50)));
      lag.child('p99').set(lateBy(h.percentile(99)));
      lag.child('max').set(lateBy(h.max));
      h.reset();
    };
    const resources = reg.gauge('nodejs_active_resources', 'Resources keeping the event loop alive, by type (TCPSocketWrap, Timeout, FSReqCallback…).',
      ['type']);
    resources.collect = () => {
      resources.reset();
      for (const type of process.getActiveResourcesInfo()) resources.child(type).inc();
    };
  }

  stop(): void {
    this.#loop.disable();
  }
}

/**
 * The histogram holds the time between two samples, so the sampling period itself (an idle loop
 * read 20-21 ms at a 20 ms resolution); what the loop added to it is the lag, in seconds.
 */
function lateBy(ns: number): number {
  return Math.max(0, ns / 1e9 - LOOP_RESOLUTION_MS / 1e3);
}
