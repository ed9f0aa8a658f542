import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import type { KeyRecord } from '../domain/key-record.js';
import type { RequestGate } from '../domain/request-gate.js';
import type { Attempt } from './route-planner.js';

/** A request once parsed and planned: its routes, and what else serving it needs. */
export interface Planned {
  plan: Attempt[];
}

/**
 * One request between the gate's admission and settlement, whatever its endpoint: the key (the
 * router authenticated it) is counted, `prepare` parses and plans the request (a promise only when
 * it must read a remote store), its maximum cost is held
 * (standard keys; routes on the caller's own key cost nothing) until `serve` returns the true cost, and
 * the hold is released if anything throws. `requestId` is the HTTP answer's own (its x-request-id),
 * so the ledger rows carry it; errors thrown while serving carry it as x-gw-request-id too.
 * Resolves to the cost settled.
 */
export async function admitted<P extends Planned>(key: KeyRecord, gate: RequestGate, requestId: string,
  prepare: (key: KeyRecord) => P | Promise<P>, maxCost: (p: P) => number, serve: (key: KeyRecord, p: P, requestId: string) => Promise<number>): Promise<number> {
  if (gate.enterAdmitted) return admittedAtOnce(key, gate, requestId, prepare, maxCost, serve);
  const entered = gate.enter(key);
  const ticket = entered instanceof Promise ? await entered : entered;
  let settled = false;
  try {
    const prepared = prepare(key);
    const p = prepared instanceof Promise ? await prepared : prepared;
    const held = gate.admit(ticket, key.tier === 'standard' ? maxCost(p) : 0);
    if (held) await held;
    let cost: number;
    try {
      cost = await serve(key, p, requestId);
    } catch (e) {
      throw withRequestId(e, requestId);
    }
    gate.settle(ticket, cost);
    settled = true;
    return cost;
  } finally {
    if (!settled) gate.settle(ticket, 0);
  }
}

/**
 * The same for a gate whose every call is a round trip to a shared store: parse and plan first,
 * then enter and hold in one decision (one round trip in series, not two). A request its parsing
 * refuses still meets the gate first, so a client over its limit hears 429 rather than 400, and
 * is counted in the minute as before.
 */
async function admittedAtOnce<P extends Planned>(key: KeyRecord, gate: RequestGate, requestId: string,
  prepare: (key: KeyRecord) => P | Promise<P>, maxCost: (p: P) => number, serve: (key: KeyRecord, p: P, requestId: string) => Promise<number>): Promise<number> {
  let p: P;
  try {
    p = await prepare(key);
  } catch (e) {
    const ticket = await gate.enter(key);
    gate.settle(ticket, 0);
    throw e;
  }
  const ticket = await gate.enterAdmitted!(key, key.tier === 'standard' ? maxCost(p) : 0);
  let settled = false;
  try {
    let cost: number;
    try {
      cost = await serve(key, p, requestId);
    } catch (e) {
      throw withRequestId(e, requestId);
    }
    gate.settle(ticket, cost);
    settled = true;
    return cost;
  } finally {
    if (!settled) gate.settle(ticket, 0);
  }
}

function withRequestId(e: unknown, requestId: string): unknown {
  return isGatewayError(e) ? new GatewayError(e.status, e.type, e.code, e.message, { ...e.headers, 'x-gw-request-id': requestId }) : e;
}
