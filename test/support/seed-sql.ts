import type { StoreBackend } from './store-backends.js';

/** `?` placeholders in PostgreSQL's spelling ($1, $2, …). */
const numbered = (text: string): string => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

/**
 * Test-only seed SQL, written once in the SQL both databases share, with `?` placeholders: for
 * what a test sets up that no store method does.
 */
export async function exec(be: StoreBackend, text: string, ...params: (string | number | null)[]): Promise<void> {
  if (be.db) be.db.prepare(text).run(...params);
  else await be.pg!.unsafe(numbered(text), params);
}

/** Rows of a test-only read, as plain objects (alias columns in double quotes). */
export async function rows<T>(be: StoreBackend, text: string, ...params: (string | number | null)[]): Promise<T[]> {
  if (be.db) return be.db.prepare(text).all(...params) as T[];
  return [...await be.pg!.unsafe(numbered(text), params)] as T[];
}
