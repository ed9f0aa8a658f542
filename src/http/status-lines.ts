import { STATUS_CODES } from 'node:http';

const LINES = new Map<number, string>();

/** "200 OK"-style status lines for uWS writeStatus, built once per code. */
export function statusLine(status: number): string {
  let s = LINES.get(status);
  if (s === undefined) {
    s = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    LINES.set(status, s);
  }
  return s;
}
