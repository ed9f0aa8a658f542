import type { Db } from './database.js';
import { newId } from '../lib/ids.js';
import { insertMoneyEvent, insertOrg } from './orgs.js';
import type { User, UserPatch, UserStore } from '../domain/stores/user-store.js';
import type { SignIn } from '../domain/stores/sign-in-store.js';

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  avatar_url: string | null;
  created_at: number;
}

export function findUserByEmail(db: Db, email: string): UserRow | undefined {
  return db.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRow | undefined;
}

export function findUser(db: Db, id: string): UserRow | undefined {
  return db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
}

export function findUserByIdentity(db: Db, provider: string, subject: string): UserRow | undefined {
  return db.prepare(`SELECT u.* FROM user_identities i JOIN users u ON u.id = i.user_id WHERE i.provider = ? AND i.subject = ?`)
    .get(provider, subject) as UserRow | undefined;
}

export type { SignIn };

/**
 * Finds the user for a sign-in, creating it on first sign-in together with its personal org
 * (the user as owner, a default workspace, and the signup credit if any). One transaction.
 */
export function upsertUserForSignIn(db: Db, s: SignIn, now: number): { user: UserRow; personalOrgId: string; created: boolean } {
  // IMMEDIATE: it reads before it writes while the ledger writer commits from another thread.
  return db.transaction(() => {
    let user = s.identity ? findUserByIdentity(db, s.identity.provider, s.identity.subject) : undefined;
    user ??= findUserByEmail(db, s.email);
    let created = false;
    if (!user) {
      const id = newId('usr');
      db.prepare('INSERT INTO users (id, email, name, avatar_url, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(id, s.email, s.name ?? null, s.avatarUrl ?? null, now);
      user = findUser(db, id)!;
      created = true;
    }
    if (s.identity) {
      db.prepare('INSERT OR IGNORE INTO user_identities (provider, subject, user_id, created_at) VALUES (?, ?, ?, ?)')
        .run(s.identity.provider, s.identity.subject, user.id, now);
    }
    let personalOrgId = db.prepare(`SELECT o.id FROM orgs o JOIN memberships m ON m.org_id = o.id
      WHERE m.user_id = ? AND o.personal = 1`).pluck().get(user.id) as string | undefined;
    if (!personalOrgId) {
      const name = user.name ? `${user.name}'s org` : user.email.split('@')[0];
      personalOrgId = insertOrg(db, name, { personal: true, now }).orgId;
      db.prepare("INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)").run(personalOrgId, user.id, now);
      if (s.signupCreditMicros > 0) insertMoneyEvent(db, personalOrgId, 'signup_credit', s.signupCreditMicros, { note: 'signup credit', now });
    }
    return { user, personalOrgId, created };
  }).immediate();
}

/** The UserStore on SQLite: statements prepared once. */
export function sqliteUserStore(db: Db): UserStore {
  const find = db.prepare('SELECT id, email, name, avatar_url AS avatarUrl, created_at AS createdAt FROM users WHERE id = ?');
  const setName = db.prepare('UPDATE users SET name = ? WHERE id = ?');
  const clearAvatar = db.prepare('UPDATE users SET avatar_url = NULL WHERE id = ?');
  const answered = db.prepare('SELECT 1 FROM attributions WHERE user_id = ?');
  const answer = db.prepare('INSERT OR IGNORE INTO attributions (user_id, answers, created_at) VALUES (?, ?, ?)');
  const update = db.transaction((id: string, patch: UserPatch) => {
    if (patch.name !== undefined) setName.run(patch.name, id);
    if (patch.avatarUrl !== undefined) clearAvatar.run(id);
  });
  return {
    find: async (id) => find.get(id) as User | undefined,
    update: async (id, patch) => update(id, patch),
    attributionPending: async (userId) => answered.get(userId) === undefined,
    saveAttribution: async (userId, answers, now) => answer.run(userId, answers, now).changes === 1,
  };
}
