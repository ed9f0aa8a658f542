export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const noop = (): void => {};

/**
 * JSON lines on stdout (errors on stderr). Levels below the threshold are no-ops chosen once
 * here, not a flag checked per call.
 */
export function createLogger(level: LogLevel, write: (line: string, isError: boolean) => void = defaultWrite): Logger {
  // Log lines carry real time, to line up with other systems' logs, whatever the injected clock reads.
  const at = (l: LogLevel) => ORDER[l] >= ORDER[level]
    ? (msg: string, fields?: Record<string, unknown>) => write(JSON.stringify({ t: new Date().toISOString(), level: l, msg, ...fields }), l === 'error')
    : noop;
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function defaultWrite(line: string, isError: boolean): void {
  (isError ? process.stderr : process.stdout).write(line + '\n');
}
