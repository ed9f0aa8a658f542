import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { errors } from '../errors/catalog.js';
import type { GatewayError } from '../errors/gateway-error.js';

/**
 * Requests whose framing is ambiguous. uWS (v20.30) frames a body by the first Content-Length
 * and parses what follows as the next request, so a proxy in front that reads another one would
 * disagree about where requests end (request smuggling). Such a request is answered 400 with
 * Connection: close. uWS cannot both answer and stop parsing: requests already in the same read
 * are still handed over, synchronously, before the loop turn ends (a close after the answer
 * loses the answer, and the close flag is forgotten once the next request starts); those are
 * the smuggled ones, refused the same way by their remote address until the turn ends.
 */
export const TWO_LENGTHS = errors.badRequest('The request has more than one Content-Length header');
const SMUGGLED = errors.badRequest('This request followed one with more than one Content-Length header on its connection');

// uWS shows repeated headers only through forEach; a module-level counter spares the callback
// a closure allocated per request.
let lengths = 0;
const countLength = (name: string): void => {
  if (name === 'content-length') lengths++;
};

let taintedAddress: string | null = null;
const clearTaint = (): void => {
  taintedAddress = null;
};

const addressOf = (res: HttpResponse): string => Buffer.from(res.getRemoteAddressAsText()).toString();

export type FramingCheck = (res: HttpResponse, req: HttpRequest, declaredLength: string) => GatewayError | null;

/** The check when the operator turned it off (rejectRepeatedContentLength: false). */
export const NO_FRAMING_CHECK: FramingCheck = () => null;

/**
 * The refusal for a request that must not be served, or null. `declaredLength` is its first
 * Content-Length (empty when absent, as on most GETs, which then cost nothing more). The forEach
 * is the cost: about 1.2k instructions a header, 7.2k for the benchmark's six (callgrind).
 */
export function framingRefusal(res: HttpResponse, req: HttpRequest, declaredLength: string): GatewayError | null {
  if (taintedAddress !== null && addressOf(res) === taintedAddress) return SMUGGLED;
  if (declaredLength === '') return null;
  lengths = 0;
  req.forEach(countLength);
  if (lengths < 2) return null;
  if (taintedAddress === null) setImmediate(clearTaint);
  taintedAddress = addressOf(res);
  return TWO_LENGTHS;
}
