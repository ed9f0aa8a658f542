import type { Config } from '../config/schema.js';
import type { ChainSink } from '../domain/chain.js';
import type { ByokKeySink } from '../domain/byok-key.js';
import type { OrgEndpointSink } from '../domain/org-endpoint.js';
import type { Logger } from '../lib/logger.js';
import type { Mailer } from '../lib/mailer.js';

/** How the control plane tells the data plane that something it caches has changed. */
export interface DataplaneNotifier extends ChainSink, ByokKeySink, OrgEndpointSink {
  keyChanged(keyId: string): void;
  workspaceChanged(workspaceId: string): void;
}

/**
 * What the composition root shares with the control plane's services as it builds them: the
 * notifier, and the public origin (set once the server listens, so read it late).
 */
export interface ControlDeps {
  config: Readonly<Config>;
  log: Logger;
  notify: DataplaneNotifier;
  /** Public origin of the gateway (config baseUrl, else http://host:port). */
  baseUrl: string;
  /** The mail relay (smtp.*), built once; null without one. */
  mailer: Mailer | null;
}
