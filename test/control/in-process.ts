// Control-plane routes called in process (createInjector) over a real SQLite database in a temp
// dir: two orgs, and a session cookie for each org and role.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInjector, type InjectRequest, type InjectResponse } from '../../src/http/inject.js';
import type { RouteSpec } from '../../src/domain/route-spec.js';
import type { Role, Session } from '../../src/domain/session.js';
import { createLogger } from '../../src/lib/logger.js';
import { openDatabase, type Db } from '../../src/store/database.js';
import { insertOrg } from '../../src/store/orgs.js';

const ORIGIN = 'http://gw.example';

export interface TwoOrgs {
  db: Db;
  /** Org ids by name. */
  org: { a: string; b: string };
}

export function twoOrgs(): TwoOrgs {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'gw-control-')), 'gw.db'));
  return { db, org: { a: insertOrg(db, 'Org A', { now: Date.now() }).orgId, b: insertOrg(db, 'Org B', { now: Date.now() }).orgId } };
}

/** Headers of a signed-in user of org `a` or `b` with a role: `as('a', 'admin')`. */
export function as(org: 'a' | 'b', role: Role): Record<string, string> {
  return { cookie: `gw_session=${org}-${role}`, origin: ORIGIN };
}

/** The routes behind the router, with sessions for both orgs' owners, admins and members. */
export function injector(routes: RouteSpec[], orgs: Pick<TwoOrgs, 'org'>): (req: InjectRequest) => Promise<InjectResponse> {
  return createInjector(routes, {
    log: createLogger('error'), allowedOrigins: new Set([ORIGIN]),
    sessions: (token): Session | null => {
      const [org, role] = token.split('-') as ['a' | 'b', Role];
      const orgId = orgs.org[org];
      if (orgId === undefined || !['owner', 'admin', 'member'].includes(role)) return null;
      return { hash: token, userId: `usr_${token}`, email: `${token}@example.com`, orgId, role, expiresAt: Infinity };
    },
  });
}
