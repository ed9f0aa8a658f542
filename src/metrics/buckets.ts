/**
 * Histogram bounds. The gen_ai ones are the OpenTelemetry GenAI semantic conventions' advice, so
 * that dashboards built for them read these series; the gateway's own are its latency ranges.
 */

/** gen_ai.client.operation.duration (seconds). */
export const OPERATION_SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** gen_ai.server.time_to_first_token (seconds). */
export const FIRST_TOKEN_SECONDS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** gen_ai.client.token.usage (tokens). */
export const TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** Whole HTTP answers, control routes and long streams alike (seconds). */
export const REQUEST_SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** The gateway's own time on a request: tens of microseconds when all is well (seconds). */
export const OVERHEAD_SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** One ledger batch's commit (seconds). */
export const LEDGER_WRITE_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
