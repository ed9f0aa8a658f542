import type { UsageSink } from '../domain/usage-record.js';
import type { Tracer } from './tracer.js';

/**
 * The usage sink with traces on (installed only then): every record still goes to the ledger,
 * and also ends its attempt's span in the request's trace. The records are what the spans are
 * built from, so a span never says more than the ledger does.
 */
export function tracedUsage(sink: UsageSink, tracer: Tracer): UsageSink {
  return {
    record(r) {
      sink.record(r);
      tracer.recorded(r);
    },
  };
}
