import { suite, type Test } from 'uvu';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInjector, type InjectRequest, type InjectResponse } from '../../src/http/inject.js';
import type { RouteSpec } from '../../src/domain/route-spec.js';
import type { Session } from '../../src/domain/session.js';
import { createLogger } from '../../src/lib/logger.js';
import { newId } from '../../src/lib/ids.js';
import { openDatabase, type Db } from '../../src/store/database.js';
import { insertOrg } from '../../src/store/orgs.js';
import { hashToken, insertSession, sessionReader } from '../../src/store/sessions.js';
import { upsertUserForSignIn } from '../../src/store/users.js';
import { openPostgres, type Pg } from '../../src/store/postgres/pg-database.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';

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
 * One database a contract test runs over: SQLite in a temp folder, or a real PostgreSQL server the
 * test started, migrated from schema.sql. A service suite runs once per backend, each over a fresh
 * database, so both implementations of a store interface must keep the same rules.
 */
export interface StoreBackend {
  name: 'sqlite' | 'postgres';
  /** The SQLite database (sqlite backend only). */
  db?: Db;
  /** The PostgreSQL pool (postgres backend only). */
  pg?: Pg;
  /** This backend's implementation of a store: `be.pick(sqliteWorkspaceStore, postgresWorkspaceStore)`. */
  pick<T>(onSqlite: (db: Db) => T, onPostgres: (pg: Pg) => T): T;
  /** A user with a personal org (and its default workspace) and an open session. */
  signUp(email: string): Promise<Person>;
  /** An org (not personal) with its default workspace. */
  org(name: string): Promise<{ orgId: string; workspaceId: string }>;
  /** Reads a session as the router does. */
  readSession(token: string): Promise<Session | null>;
  /** The routes behind the router, with this backend's sessions. */
  injector(routes: RouteSpec[]): (req: InjectRequest) => Promise<InjectResponse>;
  close(): Promise<void>;
}

function injectorFor(read: (token: string) => Promise<Session | null>) {
  return (routes: RouteSpec[]) => createInjector(routes, {
    log: createLogger('error'), allowedOrigins: new Set([ORIGIN]), sessions: (token) => read(token),
  });
}

export function sqliteBackend(): StoreBackend {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'gw-control-')), 'gw.db'));
  const read = sessionReader(db);
  const readSession = async (token: string) => read(token, Date.now());
  return {
    name: 'sqlite',
    db,
    pick: (onSqlite) => onSqlite(db),
    async signUp(email) {
      const { user, personalOrgId } = upsertUserForSignIn(db, { email, signupCreditMicros: 0 }, Date.now());
      const { token } = insertSession(db, user.id, personalOrgId, 3_600_000, Date.now());
      return { userId: user.id, email, personalOrgId, headers: { cookie: `gw_session=${token}`, origin: ORIGIN } };
    },
    org: async (name) => insertOrg(db, name, { now: Date.now() }),
    readSession,
    injector: injectorFor(readSession),
    close: async () => { db.close(); },
  };
}

let server: Promise<PostgresServer> | null = null;
let databases = 0;

/**
 * A fresh database on the PostgreSQL server this test process started (one server a process,
 * started on first use). Seeds are written with SQL here, in the test: they stand for what
 * sign-in and org creation leave, so a suite does not depend on the store it is testing.
 */
export async function postgresBackend(): Promise<StoreBackend> {
  const srv = await (server ??= startPostgres());
  const pg = await openPostgres(srv.createDatabase(`t${++databases}`), { max: 4 });
  const org = async (name: string, personal = false) => {
    const orgId = newId('org');
    const workspaceId = newId('ws');
    const now = Date.now();
    await pg.begin(async (tx) => {
      await tx`INSERT INTO orgs (id, name, personal, created_at) VALUES (${orgId}, ${name}, ${personal ? 1 : 0}, ${now})`;
      await tx`INSERT INTO workspaces (id, org_id, name, is_default, created_at) VALUES (${workspaceId}, ${orgId}, 'default', 1, ${now})`;
    });
    return { orgId, workspaceId };
  };
  const readSession = async (token: string): Promise<Session | null> => {
    const [row] = await pg<(Session & { role: Session['role'] | null })[]>`SELECT s.hash, s.user_id AS "userId", u.email,
      s.active_org_id AS "orgId", m.role, s.expires_at AS "expiresAt"
      FROM sessions s JOIN users u ON u.id = s.user_id
      LEFT JOIN memberships m ON m.org_id = s.active_org_id AND m.user_id = s.user_id WHERE s.hash = ${hashToken(token)}`;
    if (!row || row.expiresAt <= Date.now() || row.role === null) return null;
    return { ...row, role: row.role };
  };
  return {
    name: 'postgres',
    pg,
    pick: (_onSqlite, onPostgres) => onPostgres(pg),
    async signUp(email) {
      const userId = newId('usr');
      const now = Date.now();
      const { orgId } = await org(`${email}'s org`, true);
      const token = `${newId('tok')}${newId('tok')}`;
      await pg.begin(async (tx) => {
        await tx`INSERT INTO users (id, email, created_at) VALUES (${userId}, ${email}, ${now})`;
        await tx`INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (${orgId}, ${userId}, 'owner', ${now})`;
        await tx`INSERT INTO sessions (hash, user_id, active_org_id, created_at, expires_at)
          VALUES (${hashToken(token)}, ${userId}, ${orgId}, ${now}, ${now + 3_600_000})`;
      });
      return { userId, email, personalOrgId: orgId, headers: { cookie: `gw_session=${token}`, origin: ORIGIN } };
    },
    org: (name) => org(name),
    readSession,
    injector: injectorFor(readSession),
    close: () => pg.end({ timeout: 1 }),
  };
}

/** Stops the PostgreSQL server this process started, if any (call from the suite's last after()). */
export async function stopPostgres(): Promise<void> {
  if (server) (await server).stop();
  server = null;
}

/**
 * Defines a contract suite once and runs it over each backend, each over a fresh database:
 * `define(t, be)` registers hooks and tests on `t`; `be()` is the backend, open from the suite's
 * first before() hook on. The PostgreSQL server stops after the last suite.
 */
export function eachBackend(title: string, define: (t: Test, be: () => StoreBackend) => void): void {
  const opens: [string, () => Promise<StoreBackend>][] = [['sqlite', async () => sqliteBackend()], ['postgres', postgresBackend]];
  opens.forEach(([name, open], i) => {
    const t = suite(`${title} [${name}]`);
    let opened: StoreBackend | null = null;
    t.before(async () => { opened = await open(); });
    define(t, () => {
      if (!opened) throw new Error('the backend opens in the suite\'s first before() hook');
      return opened;
    });
    t.after(async () => {
      await opened?.close();
      if (i === opens.length - 1) await stopPostgres();
    });
    t.run();
  });
}
