import { STATUS_CODES } from 'node:http';

const TEXTS = new Map<number, string>();

/**
 * "200 OK"-style status texts for uWS writeStatus, built once per code; UwsReply appends the
 * answer's header lines to it (see there why).
 */
export function statusText(status: number): string {
  let s = TEXTS.get(status);
  if (s === undefined) {
    s = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    TEXTS.set(status, s);
  }
  return s;
}
