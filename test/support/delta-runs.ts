// Counts what the WebAssembly runs (src/lib/delta-events.ts) read, so that a test can tell the
// runs were taken at all: a translator whose runs read nothing still writes the right bytes.
import { DeltaEvents } from '../../src/lib/delta-events.js';

/** `f`'s value and the bytes the runs read while it ran (of the lines `only` accepts, when given). */
export function countedRuns<T>(f: () => T, only: (lines: Buffer) => boolean = () => true): { value: T; runBytes: number } {
  const run = DeltaEvents.prototype.run;
  let runBytes = 0;
  DeltaEvents.prototype.run = function (this: DeltaEvents, lines, at, sink, seq) {
    const stop = run.call(this, lines, at, sink, seq);
    if (only(lines)) runBytes += Math.min(stop, lines.length) - at;
    return stop;
  };
  try {
    return { value: f(), runBytes };
  } finally {
    DeltaEvents.prototype.run = run;
  }
}
