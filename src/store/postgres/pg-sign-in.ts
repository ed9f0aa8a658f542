import { randomBytes } from 'node:crypto';
import type { OAuthStateRow, SignIn, SignInStore } from '../../domain/stores/sign-in-store.js';
import { newId } from '../../lib/ids.js';
import { hashToken } from '../sessions.js';
import type { Pg } from './pg-database.js';
import { lockScope, type Tx } from './pg-locks.js';
import { insertMemberPg, personalOrgPg } from './pg-members.js';
import { applyMoneyEventPg, insertOrgPg } from './pg-orgs.js';

interface UserRow { id: string; email: string; name: string | null }

/**
 * Finds the user for a sign-in, creating it on first sign-in with its personal org (the user as
 * owner, a default workspace, the signup credit). Two first sign-ins of one email at once: the
 * second insert waits on the unique email (CITEXT: any case) and then finds the first's user; the
 * personal org is looked for under `user:<id>`, so it is made once.
 */
async function upsertUser(tx: Tx, s: SignIn, now: number): Promise<{ userId: string; personalOrgId: string }> {
  const byEmail = async (): Promise<UserRow | undefined> =>
    (await tx<UserRow[]>`SELECT id, email, name FROM users WHERE email = ${s.email}::citext`)[0];
  let user = s.identity ? (await tx<UserRow[]>`SELECT u.id, u.email, u.name FROM user_identities i JOIN users u ON u.id = i.user_id
    WHERE i.provider = ${s.identity.provider} AND i.subject = ${s.identity.subject}`)[0] : undefined;
  user ??= await byEmail();
  if (!user) {
    await tx`INSERT INTO users (id, email, name, avatar_url, created_at)
      VALUES (${newId('usr')}, ${s.email}, ${s.name ?? null}, ${s.avatarUrl ?? null}, ${now}) ON CONFLICT (email) DO NOTHING`;
    user = (await byEmail())!;
  }
  if (s.identity) {
    await tx`INSERT INTO user_identities (provider, subject, user_id, created_at)
      VALUES (${s.identity.provider}, ${s.identity.subject}, ${user.id}, ${now}) ON CONFLICT DO NOTHING`;
  }
  await lockScope(tx, `user:${user.id}`);
  let personalOrgId = await personalOrgPg(tx, user.id);
  if (!personalOrgId) {
    const name = user.name ? `${user.name}'s org` : user.email.split('@')[0];
    personalOrgId = (await insertOrgPg(tx, name, { personal: true, now })).orgId;
    await insertMemberPg(tx, personalOrgId, user.id, 'owner', now);
    if (s.signupCreditMicros > 0) await applyMoneyEventPg(tx, personalOrgId, 'signup_credit', s.signupCreditMicros, { note: 'signup credit', now });
  }
  return { userId: user.id, personalOrgId };
}

/** The SignInStore on PostgreSQL. States and login links are taken by one statement each, so each is used at most once. */
export function postgresSignInStore(sql: Pg): SignInStore {
  return {
    saveState: (row) => sql.begin(async (tx) => {
      await tx`DELETE FROM oauth_states WHERE expires_at <= ${row.created_at}`;
      await tx`INSERT INTO oauth_states (state, provider, code_verifier, nonce, return_to, created_at, expires_at)
        VALUES (${row.state}, ${row.provider}, ${row.code_verifier}, ${row.nonce}, ${row.return_to}, ${row.created_at}, ${row.expires_at})`;
    }),
    takeState: async (state) => (await sql<OAuthStateRow[]>`DELETE FROM oauth_states WHERE state = ${state}
      RETURNING state, provider, code_verifier, nonce, return_to, created_at, expires_at`)[0],
    signIn: (s, ttlMs, now) => sql.begin(async (tx) => {
      const { userId, personalOrgId } = await upsertUser(tx, s, now);
      // 256 random bits in the cookie, only their hash stored.
      const token = randomBytes(32).toString('base64url');
      const expiresAt = now + ttlMs;
      await tx`INSERT INTO sessions (hash, user_id, active_org_id, created_at, expires_at)
        VALUES (${hashToken(token)}, ${userId}, ${personalOrgId}, ${now}, ${expiresAt})`;
      return { token, expiresAt, userId };
    }),
    saveLoginLink: async (token, email, now, expiresAt) => {
      await sql`INSERT INTO login_links (hash, email, created_at, expires_at) VALUES (${hashToken(token)}, ${email}, ${now}, ${expiresAt})`;
    },
    // A second click at once waits on the row, then finds it used (READ COMMITTED re-reads the row it waited on).
    useLoginLink: async (token, now) => (await sql<{ email: string }[]>`UPDATE login_links SET used_at = ${now}
      WHERE hash = ${hashToken(token)} AND used_at IS NULL AND expires_at > ${now} RETURNING email`)[0]?.email ?? null,
  };
}
