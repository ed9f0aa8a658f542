import { fetch } from 'undici';
import type { Provider } from '../../catalog/catalog.js';
import { adapterFor } from '../../providers/registry.js';
import type { ProxyDispatchers } from '../proxy-dispatchers.js';
import { readBounded } from '../bounded-body.js';

/** Largest model list read from a provider. */
const MAX_BYTES = 4 * 1024 * 1024;

export type KeyCheck =
  | { result: 'ok'; models: string[] }
  | { result: 'rejected' | 'unreachable'; message: string };

/**
 * Checks a caller's key against the provider itself: its OpenAI-style `GET /models`, sent with
 * the key as the provider expects it, through the forward proxy. A 401 or 403 is a rejected key;
 * anything else that is not a model list means the provider could not say.
 */
export async function checkProviderKey(provider: Provider, key: string, dispatchers: ProxyDispatchers, timeoutMs: number): Promise<KeyCheck> {
  const url = `${provider.baseUrl}/models`;
  let res;
  try {
    res = await fetch(url, {
      headers: { ...adapterFor(provider.entry.kind).authHeaders(key), accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs), dispatcher: dispatchers.for(url),
    });
  } catch (e) {
    return { result: 'unreachable', message: `${provider.id} did not answer: ${(e as Error).message}` };
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    return { result: 'rejected', message: `${provider.id} refused the key (${res.status})` };
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    return { result: 'unreachable', message: `${provider.id} answered ${res.status} to its model list` };
  }
  try {
    const doc = JSON.parse((await readBounded(res, MAX_BYTES)).toString('utf8')) as { data?: { id?: unknown }[] };
    if (!Array.isArray(doc.data)) throw new Error('no data array');
    return { result: 'ok', models: doc.data.map((m) => m?.id).filter((id): id is string => typeof id === 'string').slice(0, 5_000) };
  } catch (e) {
    return { result: 'unreachable', message: `${provider.id}'s model list could not be read: ${(e as Error).message}` };
  }
}
