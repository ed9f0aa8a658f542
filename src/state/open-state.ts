import type { Config } from '../config/schema.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { GatewayState } from './gateway-state.js';
import { openSharedState } from './shared-state.js';
import { openSqliteState } from './sqlite-state.js';

/** Where state lives, as configured: PostgreSQL and Redis when store.url is set, else the SQLite file. */
export function openState(config: Readonly<Config>, o: { clock: Clock; log: Logger; startedAt: number }): Promise<GatewayState> {
  return config.store.url ? openSharedState(config, o) : Promise.resolve(openSqliteState(config, o));
}
