import { sessionCookie } from '../lib/session-cookie.js';
import { inrToMicros } from '../lib/money.js';
import { insertSession } from '../store/sessions.js';
import { upsertUserForSignIn, type SignIn } from '../store/users.js';
import type { ControlDeps } from './control-deps.js';

/** Signs a user in (creating them and their personal org on first sign-in) and returns the cookie to set. */
export function startSession(d: ControlDeps, signIn: Omit<SignIn, 'signupCreditMicros'>): { setCookie: string; userId: string } {
  const now = d.clock.now();
  const { user, personalOrgId } = upsertUserForSignIn(d.db, {
    ...signIn, signupCreditMicros: inrToMicros(d.config.orgs.signupCreditInr),
  }, now);
  const { token, expiresAt } = insertSession(d.db, user.id, personalOrgId, d.config.auth.sessionTtlHours * 3_600_000, now);
  return { setCookie: sessionCookie(token, expiresAt, d.baseUrl.startsWith('https://')), userId: user.id };
}
