import type { User, UserPatch, UserStore } from '../../domain/stores/user-store.js';
import type { Pg } from './pg-database.js';

/** The UserStore on PostgreSQL. */
export function postgresUserStore(sql: Pg): UserStore {
  return {
    find: async (id) => (await sql<User[]>`SELECT id, email, name, avatar_url AS "avatarUrl", created_at AS "createdAt"
      FROM users WHERE id = ${id}`)[0],
    update: async (id: string, patch: UserPatch) => {
      const set: Record<string, string | null> = {};
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.avatarUrl !== undefined) set.avatar_url = null;
      if (Object.keys(set).length > 0) await sql`UPDATE users SET ${sql(set)} WHERE id = ${id}`;
    },
    attributionPending: async (userId) => (await sql`SELECT 1 FROM attributions WHERE user_id = ${userId}`).length === 0,
    // Two answers at once: the second insert waits for the first to commit, then does nothing.
    saveAttribution: async (userId, answers, now) => (await sql`INSERT INTO attributions (user_id, answers, created_at)
      VALUES (${userId}, ${answers}, ${now}) ON CONFLICT (user_id) DO NOTHING`).count === 1,
  };
}
