import { fetch } from 'undici';
import { LRUCache } from 'lru-cache';
import { stateCodeOf, GST_STATES } from '../../lib/gst-codes.js';
import { errors } from '../../errors/catalog.js';
import type { ProxyDispatchers } from '../proxy-dispatchers.js';
import { readBounded } from '../bounded-body.js';

export interface PinPlace {
  pincode: string;
  city: string;
  district: string;
  state: string;
  state_code: string;
}

/** Postal PIN codes: six digits, the first (the postal region) never 0. */
export const PIN_RE = /^[1-9]\d{5}$/;
const MAX_BYTES = 1024 * 1024;

interface PostOffice {
  Name?: unknown;
  District?: unknown;
  Block?: unknown;
  State?: unknown;
}

/**
 * City and state for a PIN code, for the billing address form. Reads the India Post data as
 * api.postalpincode.in serves it (`[{Status, PostOffice: [{District, State}]}]`); answers are
 * cached for a day, misses for an hour, since PIN codes rarely change.
 */
export class PincodeLookup {
  readonly #url: string;
  readonly #dispatchers: ProxyDispatchers;
  readonly #timeoutMs: number;
  readonly #cache = new LRUCache<string, PinPlace | 'none'>({ max: 5_000, ttl: 86_400_000 });

  constructor(url: string, dispatchers: ProxyDispatchers, timeoutMs: number) {
    this.#url = url.endsWith('/') ? url : `${url}/`;
    this.#dispatchers = dispatchers;
    this.#timeoutMs = timeoutMs;
  }

  async lookup(pin: string): Promise<PinPlace> {
    if (!PIN_RE.test(pin)) throw errors.badRequest('A PIN code is six digits and does not start with 0');
    let place = this.#cache.get(pin);
    if (place === undefined) {
      place = await this.#fetch(pin);
      this.#cache.set(pin, place, { ttl: place === 'none' ? 3_600_000 : undefined });
    }
    if (place === 'none') throw errors.notFound(`No post office has PIN code ${pin}`);
    return place;
  }

  async #fetch(pin: string): Promise<PinPlace | 'none'> {
    const url = this.#url + pin;
    let doc: unknown;
    try {
      const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(this.#timeoutMs), dispatcher: this.#dispatchers.for(url) });
      if (res.status === 404) {
        await res.body?.cancel();
        return 'none';
      }
      if (res.status !== 200) {
        await res.body?.cancel();
        throw new Error(`status ${res.status}`);
      }
      doc = JSON.parse((await readBounded(res, MAX_BYTES)).toString('utf8'));
    } catch (e) {
      throw errors.serviceUnavailable(`The PIN code lookup did not answer: ${(e as Error).message}; enter the city and state by hand`);
    }
    const first = Array.isArray(doc) ? (doc[0] as { Status?: unknown; PostOffice?: unknown } | undefined) : undefined;
    const offices = Array.isArray(first?.PostOffice) ? (first!.PostOffice as PostOffice[]) : [];
    for (const o of offices) {
      const code = typeof o.State === 'string' ? stateCodeOf(o.State) : null;
      if (!code || typeof o.District !== 'string') continue;
      return { pincode: pin, city: o.District, district: o.District, state: GST_STATES.get(code)!, state_code: code };
    }
    return 'none';
  }
}
