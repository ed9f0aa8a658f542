import { createHash } from 'node:crypto';
import type { ResponseCacheMode } from '../../domain/cache-settings.js';

export type CacheMode = ResponseCacheMode;

/** Members that change nothing in the answer (who asked, how usage is reported, whether it is kept). */
const IGNORED = new Set(['user', 'metadata', 'stream_options', 'store']);

export type CacheKey = { key: string; model: string; stream: boolean } | { bypass: string };

/**
 * The cache key of a request: its org, route and body, normalised (members in sorted order at
 * every depth, the ignored ones left out). `on` keys only answers that can repeat: embeddings, and
 * generations with `temperature` 0; a generation at another (or the default) temperature is
 * sampled, so it is keyed only in `always` mode.
 */
export function cacheKeyOf(orgId: string, route: string, raw: Buffer, mode: CacheMode, embeddings: boolean): CacheKey {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { bypass: 'not JSON' }; // the route refuses it in its own words
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { bypass: 'not an object' };
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string') return { bypass: 'no model' };
  if (mode === 'on' && !embeddings && b.temperature !== 0) return { bypass: 'sampled (temperature is not 0)' };
  const text = normalised(b, true);
  const key = createHash('sha256').update(orgId).update('\n').update(route).update('\n').update(text).digest('hex');
  return { key, model: b.model, stream: b.stream === true };
}

function normalised(v: unknown, top = false): string {
  if (Array.isArray(v)) return `[${v.map((x) => normalised(x)).join(',')}]`;
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  const o = v as Record<string, unknown>;
  const names = Object.keys(o).filter((k) => o[k] !== undefined && !(top && IGNORED.has(k))).sort();
  return `{${names.map((k) => `${JSON.stringify(k)}:${normalised(o[k])}`).join(',')}}`;
}
