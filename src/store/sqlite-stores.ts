import type { Stores } from '../domain/stores/stores.js';
import type { Db } from './database.js';
import { sqliteBillingStore } from './billing.js';
import { sqliteByokKeyStore } from './byok-keys.js';
import { sqliteCollectionStore } from './collections.js';
import { sqliteCustomEndpointStore } from './custom-endpoints.js';
import { sqliteInvitationStore } from './invitations.js';
import { sqliteKeyStore } from './keys.js';
import { sqliteMemberStore } from './members.js';
import { sqliteMonitoringStore } from './monitoring.js';
import { sqliteOrgStore } from './orgs.js';
import { sqliteRoutingChainStore } from './routing-chains.js';
import { sessionReader, sqliteSessionStore } from './sessions.js';
import { sqliteSignInStore } from './sign-in.js';
import { sqliteUserStore } from './users.js';
import { sqliteWorkspaceStore } from './workspaces.js';

/** Every control-plane store on one SQLite database, statements prepared once. */
export function sqliteStores(db: Db): Stores {
  return {
    orgs: sqliteOrgStore(db),
    keys: sqliteKeyStore(db),
    members: sqliteMemberStore(db),
    invitations: sqliteInvitationStore(db),
    workspaces: sqliteWorkspaceStore(db),
    users: sqliteUserStore(db),
    sessions: sqliteSessionStore(db),
    signIn: sqliteSignInStore(db),
    chains: sqliteRoutingChainStore(db),
    collections: sqliteCollectionStore(db),
    byokKeys: sqliteByokKeyStore(db),
    endpoints: sqliteCustomEndpointStore(db),
    monitoring: sqliteMonitoringStore(db),
    billing: sqliteBillingStore(db),
    readSession: sessionReader(db),
  };
}
