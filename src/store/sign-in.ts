import type { Db } from './database.js';
import type { SignInStore } from '../domain/stores/sign-in-store.js';
import { insertLoginLink, useLoginLink } from './login-links.js';
import { oauthStates } from './oauth-states.js';
import { hashToken, insertSession } from './sessions.js';
import { upsertUserForSignIn } from './users.js';

/** The SignInStore on SQLite. */
export function sqliteSignInStore(db: Db): SignInStore {
  const states = oauthStates(db);
  return {
    saveState: async (row) => states.save(row),
    takeState: async (state) => states.take(state),
    signIn: async (s, ttlMs, now) => {
      const { user, personalOrgId } = upsertUserForSignIn(db, s, now);
      const { token, expiresAt } = insertSession(db, user.id, personalOrgId, ttlMs, now);
      return { token, expiresAt, userId: user.id };
    },
    saveLoginLink: async (token, email, now, expiresAt) => insertLoginLink(db, hashToken(token), email, now, expiresAt),
    useLoginLink: async (token, now) => useLoginLink(db, hashToken(token), now),
  };
}
