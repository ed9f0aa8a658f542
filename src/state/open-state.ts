import type { Config } from '../config/schema.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { GatewayState } from './gateway-state.js';
import { openSqliteState } from './sqlite-state.js';

/**
 * Where state lives, as configured: PostgreSQL and Redis when store.url is set, else the SQLite
 * file. The shared mode's drivers are loaded only then: one box never loads them.
 */
export async function openState(config: Readonly<Config>, o: { clock: Clock; log: Logger; startedAt: number }): Promise<GatewayState> {
  if (!config.store.url) return openSqliteState(config, o);
  const { openSharedState } = await import('./shared-state.js');
  return openSharedState(config, o);
}
