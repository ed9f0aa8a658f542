import type { KeyRecord } from '../domain/key-record.js';
import type { RequestGate, Ticket } from '../domain/request-gate.js';
import { isGatewayError } from '../errors/gateway-error.js';

/**
 * The request gate, telling `refused` the code of each refusal it makes (429 rate and daily
 * limits and budgets, 402 credits, 503 when the ledger is behind or the limits store is away).
 * Wraps the gate only when metrics are on; a refusal never makes a usage row, so it is counted here.
 */
export function countingGate(gate: RequestGate, refused: (code: string) => void): RequestGate {
  const count = (e: unknown): never => {
    if (isGatewayError(e)) refused(e.code);
    throw e;
  };
  const enterAdmitted = gate.enterAdmitted;
  return {
    enter(key: KeyRecord): Ticket | Promise<Ticket> {
      try {
        const t = gate.enter(key);
        return t instanceof Promise ? t.catch(count) : t;
      } catch (e) {
        return count(e);
      }
    },
    admit(ticket: Ticket, maxCostMicros: number): void | Promise<void> {
      try {
        const held = gate.admit(ticket, maxCostMicros);
        return held instanceof Promise ? held.catch(count) : held;
      } catch (e) {
        return count(e);
      }
    },
    enterAdmitted: enterAdmitted === undefined ? undefined
      : (key, maxCostMicros) => enterAdmitted.call(gate, key, maxCostMicros).catch(count),
    settle: (ticket, costMicros) => gate.settle(ticket, costMicros),
  };
}
