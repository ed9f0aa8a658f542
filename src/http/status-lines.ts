import { STATUS_CODES } from 'node:http';

const LINES = new Map<number, Buffer>();

/**
 * "200 OK"-style status lines for uWS writeStatus, built once per code. Bytes, not strings: uWS
 * reads a typed array in place, where it converts every string argument to UTF-8 first.
 */
export function statusLine(status: number): Buffer {
  let s = LINES.get(status);
  if (s === undefined) {
    s = Buffer.from(`${status} ${STATUS_CODES[status] ?? 'Unknown'}`, 'latin1');
    LINES.set(status, s);
  }
  return s;
}
