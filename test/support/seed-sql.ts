import type { StoreBackend } from './store-backends.js';

/**
 * Runs one statement of test-only seed SQL on either backend: written with `?` placeholders,
 * numbered `$1…` for PostgreSQL. For what a test sets up that no store method does.
 */
export async function seedSql(be: StoreBackend, text: string, ...args: (string | number | null)[]): Promise<void> {
  if (be.db) {
    be.db.prepare(text).run(...args);
    return;
  }
  let n = 0;
  await be.pg!.unsafe(text.replace(/\?/g, () => `$${++n}`), args);
}

/** Reads rows with test-only SQL on either backend (`?` placeholders); alias columns in double quotes. */
export async function querySql<T>(be: StoreBackend, text: string, ...args: (string | number | null)[]): Promise<T[]> {
  if (be.db) return be.db.prepare(text).all(...args) as T[];
  let n = 0;
  return await be.pg!.unsafe(text.replace(/\?/g, () => `$${++n}`), args) as unknown as T[];
}
