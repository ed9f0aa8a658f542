import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** One file of the built dashboard, held in memory with its compressed forms made once at start. */
interface Asset {
  type: string;
  raw: Buffer;
  gzip: Buffer | null;
  br: Buffer | null;
  etag: string;
  headers: Record<string, string>;
  brHeaders: Record<string, string>;
  gzipHeaders: Record<string, string>;
}

/** The dashboard as the server serves it: the page shell and the hashed assets by path. */
export interface Dashboard {
  /** index.html, for / and for any GET a browser makes to a path no API route has (the app routes itself). */
  page: Asset;
  /** /assets/… and the other built files, by URL path. */
  files: ReadonlyMap<string, Asset>;
}

/** Where `npm run build` puts the dashboard (vite, web/vite.config.ts). */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../web', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2', '.map': 'application/json',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt', '.map']);
const YEAR = 'public, max-age=31536000, immutable';

/**
 * The page's policy: everything from this origin only (no CDN, no inline script or style), and
 * forms may post only here or to the payment provider's hosted checkout.
 */
export function contentSecurityPolicy(checkoutOrigin: string | null): string {
  return [
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'", "font-src 'self'",
    "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", `form-action 'self'${checkoutOrigin ? ' ' + checkoutOrigin : ''}`,
  ].join('; ');
}

/** A URL's origin, or null when it does not parse. */
export const originOf = (url: string): string | null => (URL.canParse(url) ? new URL(url).origin : null);

/** Reads the built dashboard into memory; null when it has not been built (the API still serves). */
export function loadDashboard(dir: string, checkoutOrigin: string | null): Dashboard | null {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return null;
  const files = new Map<string, Asset>();
  const pageHeaders = {
    'cache-control': 'no-cache', 'content-security-policy': contentSecurityPolicy(checkoutOrigin), 'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY', 'referrer-policy': 'same-origin',
  };
  for (const path of walk(dir)) {
    // The build's precompressed forms (web/vite.config.ts) are read with their file, not served by name.
    if (path.endsWith('.br') || path.endsWith('.gz')) continue;
    const url = '/' + relative(dir, path).split(sep).join('/');
    if (url === '/index.html') continue;
    // Vite names what it builds by content hash; anything else (a copied public file) may change under its name.
    const hashed = url.startsWith('/assets/');
    files.set(url, asset(path, { 'cache-control': hashed ? YEAR : 'no-cache', 'x-content-type-options': 'nosniff' }));
  }
  return { page: asset(index, pageHeaders), files };
}

function asset(path: string, headers: Record<string, string>): Asset {
  const ext = extname(path);
  const raw = readFileSync(path);
  const squeeze = COMPRESSIBLE.has(ext) && raw.length > 512;
  const etag = `"${createHash('sha256').update(raw).digest('base64url').slice(0, 22)}"`;
  const all = { ...headers, etag, vary: 'accept-encoding' };
  return {
    type: TYPES[ext] ?? 'application/octet-stream', raw, etag,
    gzip: squeeze ? built(path, '.gz') ?? gzipSync(raw, { level: 9 }) : null,
    br: squeeze ? built(path, '.br') ?? brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }) : null,
    headers: all, brHeaders: { ...all, 'content-encoding': 'br' }, gzipHeaders: { ...all, 'content-encoding': 'gzip' },
  };
}

/** A compressed form the build wrote beside the file, if it is there and not older than the file. */
function built(path: string, suffix: '.br' | '.gz'): Buffer | null {
  const packed = path + suffix;
  return existsSync(packed) && statSync(packed).mtimeMs >= statSync(path).mtimeMs ? readFileSync(packed) : null;
}

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else yield p;
  }
}

/** What to send for a file: the smallest encoding the client takes, or 304 when its copy is current. */
export function pick(a: Asset, acceptEncoding: string, ifNoneMatch: string): { status: number; body: Buffer; headers: Record<string, string> } {
  if (ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim() === a.etag)) return { status: 304, body: EMPTY, headers: a.headers };
  if (a.br && /\bbr\b/.test(acceptEncoding)) return { status: 200, body: a.br, headers: a.brHeaders };
  if (a.gzip && /\bgzip\b/.test(acceptEncoding)) return { status: 200, body: a.gzip, headers: a.gzipHeaders };
  return { status: 200, body: a.raw, headers: a.headers };
}

const EMPTY = Buffer.alloc(0);

/** API prefixes, whose unknown paths answer the JSON 404 even to a browser. */
const API_PATHS = /^\/(v1|me|auth|webhooks|mcp|health|openapi\.json|llms\.txt|\.well-known)(\/|$)/;

/** Whether a request is a browser loading a dashboard page (not an API client): a GET for HTML outside the API's paths. */
export const wantsPage = (method: string, url: string, accept: string): boolean =>
  method === 'get' && accept.includes('text/html') && !API_PATHS.test(url);
