import type { Db } from './database.js';
import type { OAuthStateRow } from '../domain/stores/sign-in-store.js';

export type { OAuthStateRow };


export interface OAuthStates {
  /** Records a sign-in in progress, sweeping the expired ones on the way (the table holds minutes of rows). */
  save(row: OAuthStateRow): void;
  /** Takes a state out of the table: whatever the callback decides next, a state is used at most once. */
  take(state: string): OAuthStateRow | undefined;
}

/** The oauth_states table (schema.sql migration 2), statements prepared once. */
export function oauthStates(db: Db): OAuthStates {
  const sweep = db.prepare('DELETE FROM oauth_states WHERE expires_at <= ?');
  const insert = db.prepare(`INSERT INTO oauth_states (state, provider, code_verifier, nonce, return_to, created_at, expires_at)
    VALUES (@state, @provider, @code_verifier, @nonce, @return_to, @created_at, @expires_at)`);
  const take = db.prepare('DELETE FROM oauth_states WHERE state = ? RETURNING *');
  return {
    save: (row) => {
      sweep.run(row.created_at);
      insert.run(row);
    },
    take: (state) => take.get(state) as OAuthStateRow | undefined,
  };
}
