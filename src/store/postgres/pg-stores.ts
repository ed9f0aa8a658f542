import type { Stores } from '../../domain/stores/stores.js';
import { postgresBillingStore } from './pg-billing.js';
import { postgresByokKeyStore } from './pg-byok-keys.js';
import { postgresCollectionStore } from './pg-collections.js';
import { postgresCustomEndpointStore } from './pg-custom-endpoints.js';
import type { Pg } from './pg-database.js';
import { postgresInvitationStore } from './pg-invitations.js';
import { postgresKeyStore } from './pg-keys.js';
import { postgresMemberStore } from './pg-members.js';
import { postgresMonitoringStore } from './pg-monitoring.js';
import { postgresOrgStore } from './pg-orgs.js';
import { postgresRoutingChainStore } from './pg-routing-chains.js';
import { postgresSessionReader, postgresSessionStore } from './pg-sessions.js';
import { postgresSignInStore } from './pg-sign-in.js';
import { postgresUserStore } from './pg-users.js';
import { postgresWorkspaceStore } from './pg-workspaces.js';

/** Every control-plane store on one PostgreSQL pool. */
export function postgresStores(sql: Pg): Stores {
  return {
    orgs: postgresOrgStore(sql),
    keys: postgresKeyStore(sql),
    members: postgresMemberStore(sql),
    invitations: postgresInvitationStore(sql),
    workspaces: postgresWorkspaceStore(sql),
    users: postgresUserStore(sql),
    sessions: postgresSessionStore(sql),
    signIn: postgresSignInStore(sql),
    chains: postgresRoutingChainStore(sql),
    collections: postgresCollectionStore(sql),
    byokKeys: postgresByokKeyStore(sql),
    endpoints: postgresCustomEndpointStore(sql),
    monitoring: postgresMonitoringStore(sql),
    billing: postgresBillingStore(sql),
    readSession: postgresSessionReader(sql),
  };
}
