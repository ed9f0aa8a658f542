import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInjector, type InjectRequest, type InjectResponse } from '../../src/http/inject.js';
import type { RouteSpec } from '../../src/domain/route-spec.js';
import { createLogger } from '../../src/lib/logger.js';
import { openDatabase, type Db } from '../../src/store/database.js';
import { insertSession, sessionReader } from '../../src/store/sessions.js';
import { upsertUserForSignIn } from '../../src/store/users.js';

const ORIGIN = 'http://gw.example';

/** A person signed in for an in-process test: their ids, and headers carrying a real session cookie. */
export interface Person {
  userId: string;
  email: string;
  personalOrgId: string;
  /** Cookie and same-origin headers of a session of theirs, acting in their personal org. */
  headers: Record<string, string>;
}

/**
 * A real SQLite database in a temp dir and real sessions read by the gateway's own session reader,
 * for routes called in process through the router (createInjector): what the route declares
 * (role, same-origin writes) is enforced as on the wire.
 */
export function controlFixture(): {
  db: Db;
  signUp(email: string): Person;
  injector(routes: RouteSpec[]): (req: InjectRequest) => Promise<InjectResponse>;
} {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'gw-control-')), 'gw.db'));
  const read = sessionReader(db);
  return {
    db,
    signUp(email) {
      const { user, personalOrgId } = upsertUserForSignIn(db, { email, signupCreditMicros: 0 }, Date.now());
      const { token } = insertSession(db, user.id, personalOrgId, 3_600_000, Date.now());
      return { userId: user.id, email, personalOrgId, headers: { cookie: `gw_session=${token}`, origin: ORIGIN } };
    },
    injector: (routes) => createInjector(routes, {
      log: createLogger('error'), allowedOrigins: new Set([ORIGIN]), sessions: (token) => read(token, Date.now()),
    }),
  };
}
