/** A sign-in started at an identity provider, kept until its callback (minutes). */
export interface OAuthStateRow {
  state: string;
  provider: string;
  code_verifier: string;
  nonce: string | null;
  return_to: string | null;
  created_at: number;
  expires_at: number;
}

/** Who signs in: found by their provider identity, else by email; created on first sign-in. */
export interface SignIn {
  email: string;
  name?: string | null;
  avatarUrl?: string | null;
  /** The identity provider and its subject id, when signing in through one. */
  identity?: { provider: string; subject: string };
  /** Credited to the personal org made on a first sign-in. */
  signupCreditMicros: number;
}

/** A session opened: the cookie's value (only its hash is stored) and when it ends. */
export interface OpenedSession {
  token: string;
  expiresAt: number;
  userId: string;
}

/** Sign-in state, users' first sign-in and sessions, and login links (one atomic operation a method). */
export interface SignInStore {
  /** Records a sign-in in progress, sweeping the expired ones on the way. */
  saveState(row: OAuthStateRow): Promise<void>;
  /** Takes a state out: whatever the callback decides next, a state is used at most once. */
  takeState(state: string): Promise<OAuthStateRow | undefined>;
  /**
   * Finds or creates the user (with their personal org, owner membership and signup credit on a
   * first sign-in) and opens a session in that org.
   */
  signIn(s: SignIn, sessionTtlMs: number, now: number): Promise<OpenedSession>;
  /** Records a one-time login link (by its token's hash: the token itself is only in the URL). */
  saveLoginLink(token: string, email: string, now: number, expiresAt: number): Promise<void>;
  /** Marks a link used as it is read, so two clicks cannot both sign in; its email, or null when unknown, used or expired. */
  useLoginLink(token: string, now: number): Promise<string | null>;
}
