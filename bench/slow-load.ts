// Opens N slow streams in a ramp and follows them to their end (slow-streams.bench.ts). The ramp
// starts `batch` streams every `gapMs`, but never lets more than `maxOpening` wait for their
// first byte at once: a target that falls behind slows the ramp instead of being handed a
// thundering herd, and the report says how long the opening took.
import { SlowStream, type StreamEvents } from './slow-stream-client.js';

export interface RampOptions {
  port: number;
  request: Buffer;
  streams: number;
  batch: number;
  gapMs: number;
  maxOpening: number;
  /** Events every stream must carry, [DONE] included. */
  events: number;
  /** Longest the whole run may take; streams still open then are failures. */
  timeoutMs: number;
  /** Called once, synchronously, when every stream has its first byte and none has ended. */
  allOpen?: () => void;
  /** Called once, synchronously, when the first stream ends. */
  firstEnded?: () => void;
}

export interface RampResult {
  /** Times to first byte, sorted, ms. */
  ttfb: Float64Array;
  /** From the first stream started to the last one started, ms. */
  rampMs: number;
  /** From the first stream started until every stream had its first byte (or NaN if never). */
  allOpenMs: number;
  /** From the first stream started until the first stream ended, and the last. */
  firstEndMs: number;
  lastEndMs: number;
  /** Most streams open (first byte in, not ended) at once. */
  peakOpen: number;
  /** Events received while every stream was open (between allOpen and the first end). */
  heldEvents: number;
  totalEvents: number;
  completed: number;
  failures: number;
  /** The first few failures' reasons, with how many streams had each. */
  reasons: Map<string, number>;
  /** Ramp pauses because `maxOpening` streams still waited for their first byte. */
  throttled: number;
}

export function runRamp(o: RampOptions): Promise<RampResult> {
  return new Promise((resolve) => {
    const ttfb: number[] = [];
    const reasons = new Map<string, number>();
    const live = new Set<SlowStream>();
    const t0 = performance.now();
    let started = 0;
    let opening = 0;
    let open = 0;
    let peakOpen = 0;
    let ended = 0;
    let completed = 0;
    let failures = 0;
    let totalEvents = 0;
    let eventsAtAllOpen = -1;
    let eventsAtFirstEnd = -1;
    let allOpenAt = NaN;
    let firstEndAt = NaN;
    let rampEnd = NaN;
    let throttled = 0;
    let timer: NodeJS.Timeout | null = null;

    const on: StreamEvents = {
      firstByte(s) {
        opening--;
        open++;
        ttfb.push(s.firstByteAt - s.startedAt);
        if (open > peakOpen) peakOpen = open;
        if (open === o.streams && ended === 0) {
          allOpenAt = performance.now();
          eventsAtAllOpen = totalEvents;
          o.allOpen?.();
        }
      },
      events(_s, n) {
        totalEvents += n;
      },
      end(s, failure) {
        live.delete(s);
        if (s.firstByteAt === 0 || s.status !== 200) opening--;
        else open--;
        if (ended++ === 0) {
          firstEndAt = performance.now();
          eventsAtFirstEnd = totalEvents;
          o.firstEnded?.();
        }
        if (failure === null && s.events !== o.events) failure = `${s.events} events where ${o.events} were expected`;
        if (failure === null && !s.sawUsage) failure = 'no usage chunk';
        if (failure === null) completed++;
        else {
          failures++;
          reasons.set(failure, (reasons.get(failure) ?? 0) + 1);
        }
        if (ended === o.streams) finish();
      },
    };

    const finish = (): void => {
      if (timer !== null) clearTimeout(timer);
      clearTimeout(deadline);
      const sorted = Float64Array.from(ttfb).sort();
      const heldEvents = eventsAtAllOpen < 0 ? 0 : (eventsAtFirstEnd < 0 ? totalEvents : eventsAtFirstEnd) - eventsAtAllOpen;
      resolve({
        ttfb: sorted, rampMs: rampEnd - t0, allOpenMs: allOpenAt - t0, firstEndMs: firstEndAt - t0, lastEndMs: performance.now() - t0,
        peakOpen, heldEvents, totalEvents, completed, failures, reasons, throttled,
      });
    };

    const deadline = setTimeout(() => {
      for (const s of [...live]) s.destroy();
    }, o.timeoutMs);

    const step = (): void => {
      timer = null;
      if (opening >= o.maxOpening) {
        throttled++;
        timer = setTimeout(step, o.gapMs);
        return;
      }
      const n = Math.min(o.batch, o.streams - started);
      for (let i = 0; i < n; i++) {
        live.add(new SlowStream(o.port, o.request, on));
        opening++;
      }
      started += n;
      if (started < o.streams) timer = setTimeout(step, o.gapMs);
      else rampEnd = performance.now();
    };
    step();
  });
}
