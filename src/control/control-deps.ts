import type { Config } from '../config/schema.js';
import type { ChainSink } from '../domain/chain.js';
import type { ByokKeySink } from '../domain/byok-key.js';
import type { OrgEndpointSink } from '../domain/org-endpoint.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Db } from '../store/database.js';
import type { ProxyDispatchers } from './proxy-dispatchers.js';

/** How the control plane tells the data plane that something it caches has changed. */
export interface DataplaneNotifier extends ChainSink, ByokKeySink, OrgEndpointSink {
  keyChanged(keyId: string): void;
  workspaceChanged(workspaceId: string): void;
}

export interface ControlDeps {
  db: Db;
  clock: Clock;
  config: Readonly<Config>;
  log: Logger;
  notify: DataplaneNotifier;
  /** Public origin of the gateway (config baseUrl, else http://host:port). */
  baseUrl: string;
  /** undici agents for the control plane's own outbound calls, through the forward proxy; one set for all. */
  outbound: ProxyDispatchers;
}
