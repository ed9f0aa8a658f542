import { randomBytes } from 'node:crypto';

/** One field of a multipart/form-data body (RFC 7578). */
export interface FormPart {
  name: string;
  /** Set on file fields. */
  filename: string | null;
  contentType: string | null;
  /** The field's content: a view into the request body, not a copy. */
  data: Buffer;
  /** Headers and content exactly as the client sent them, for forwarding untouched. */
  raw: Buffer;
}

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');

/** The boundary of a `multipart/form-data` content type, or null when it is not one. */
export function boundaryOf(contentType: string): string | null {
  if (!/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const m = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : null;
}

/**
 * Splits a multipart/form-data body into its parts; returns a reason string when the body is
 * not one. Part contents stay views into `body`, so a 25 MB upload is not copied here.
 */
export function parseMultipart(body: Buffer, boundary: string, maxParts: number): FormPart[] | string {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first delimiter may open the body without the CRLF before it.
  let at = body.indexOf(delimiter.subarray(2));
  if (at < 0 || (at > 0 && body.indexOf(delimiter) !== at - 2)) return 'no opening boundary';
  at += delimiter.length - 2;
  const parts: FormPart[] = [];
  for (;;) {
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return parts; // "--": the closing delimiter
    // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
    while (body[at] === 0x20 || body[at] === 0x09) at++;
    if (body[at] !== 0x0d || body[at + 1] !== 0x0a) return 'a boundary is not followed by a line break';
    const start = at + 2;
    const end = body.indexOf(delimiter, start);
    if (end < 0) return 'no closing boundary (the body is cut short)';
    if (parts.length === maxParts) return `more than ${maxParts} fields`;
    const part = readPart(body.subarray(start, end));
    if (typeof part === 'string') return part;
    parts.push(part);
    at = end + delimiter.length;
  }
}

function readPart(raw: Buffer): FormPart | string {
  // A part with no headers starts with its blank line at once.
  const split = raw[0] === 0x0d && raw[1] === 0x0a ? 0 : raw.indexOf(HEADERS_END);
  if (split < 0) return 'a field has no blank line after its headers';
  const data = raw.subarray(split === 0 ? 2 : split + 4);
  let name: string | null = null;
  let filename: string | null = null;
  let contentType: string | null = null;
  for (const line of raw.subarray(0, split).toString('utf8').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const header = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (header === 'content-type') contentType = value;
    else if (header === 'content-disposition') {
      if (!/^form-data\s*(;|$)/i.test(value)) return 'a field\'s Content-Disposition is not form-data';
      name = param(value, 'name');
      filename = param(value, 'filename');
    }
  }
  if (name === null) return 'a field has no name';
  return { name, filename, contentType, data, raw };
}

function param(disposition: string, key: string): string | null {
  const m = new RegExp(`;\\s*${key}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^\\s;]+))`, 'i').exec(disposition);
  if (!m) return null;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2];
}

/** A text field in wire form: its headers, blank line and value. */
export function textPart(name: string, value: string): Buffer {
  return Buffer.from(`Content-Disposition: form-data; name="${name.replace(/["\\\r\n]/g, '_')}"\r\n\r\n${value}`);
}

/**
 * Frames parts (each its headers and content, as in FormPart.raw) under a fresh boundary that
 * occurs in none of them; returns the body as pieces to send in order (a large file is not
 * copied to join them) and its content type.
 */
export function encodeMultipart(raws: readonly Buffer[]): { body: Buffer[]; contentType: string } {
  let boundary: string;
  do boundary = `gw-${randomBytes(16).toString('hex')}`;
  while (raws.some((r) => r.includes(boundary)));
  const open = Buffer.from(`--${boundary}\r\n`);
  const pieces: Buffer[] = [];
  for (const r of raws) pieces.push(open, r, CRLF);
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: pieces, contentType: `multipart/form-data; boundary=${boundary}` };
}
