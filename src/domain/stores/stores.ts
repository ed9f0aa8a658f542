import type { Session } from '../session.js';
import type { BillingStore } from './billing-store.js';
import type { ByokKeyStore } from './byok-key-store.js';
import type { CollectionStore } from './collection-store.js';
import type { CustomEndpointStore } from './custom-endpoint-store.js';
import type { InvitationStore } from './invitation-store.js';
import type { KeyStore } from './key-store.js';
import type { MemberStore } from './member-store.js';
import type { MonitoringStore } from './monitoring-store.js';
import type { OrgStore } from './org-store.js';
import type { RoutingChainStore } from './routing-chain-store.js';
import type { SessionStore } from './session-store.js';
import type { SignInStore } from './sign-in-store.js';
import type { UserStore } from './user-store.js';
import type { WorkspaceStore } from './workspace-store.js';

/**
 * Every control-plane store on one database: what the composition root hands the services,
 * whichever database is behind it (SQLite by default, PostgreSQL with GW_STORE). One object of
 * each kind, shared by the services that read it.
 */
export interface Stores {
  readonly orgs: OrgStore;
  readonly keys: KeyStore;
  readonly members: MemberStore;
  readonly invitations: InvitationStore;
  readonly workspaces: WorkspaceStore;
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly signIn: SignInStore;
  readonly chains: RoutingChainStore;
  readonly collections: CollectionStore;
  readonly byokKeys: ByokKeyStore;
  readonly endpoints: CustomEndpointStore;
  readonly monitoring: MonitoringStore;
  readonly billing: BillingStore;
  /**
   * The session for a gw_session cookie value, with the user's role in its org; null when
   * unknown or expired. Synchronous on SQLite (every request of the dashboard reads it).
   */
  readSession(token: string, now: number): Session | null | Promise<Session | null>;
}
