import { createRequire } from 'node:module';
import 'uWebSockets.js';

/**
 * Whether uWebSockets.js loaded its native binary. The npm build silently falls back to a slow
 * pure-JS server when the binary does not match this Node; the gateway reports which it runs.
 */
export function uwsIsNative(): boolean {
  const cache = createRequire(import.meta.url).cache;
  return Object.keys(cache).some((p) => /uws_[a-z0-9]+_[a-z0-9]+_\d+\.node$/.test(p));
}
