import type { Db } from './database.js';

export type ChangeKind = 'key' | 'org' | 'workspace';

export interface Change {
  seq: number;
  kind: ChangeKind;
  ref: string;
}

/** Appends to the change feed; call inside the transaction that made the change. */
export function recordChange(db: Db, kind: ChangeKind, ref: string, at: number): void {
  db.prepare('INSERT INTO change_log (at, kind, ref) VALUES (?, ?, ?)').run(at, kind, ref);
}

/** A cheap, prepared reader of the feed for the gateway's poll loop. */
export function changeFeedReader(db: Db): { latestSeq(): number; since(seq: number): Change[] } {
  const latest = db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM change_log').pluck();
  const since = db.prepare('SELECT seq, kind, ref FROM change_log WHERE seq > ? ORDER BY seq LIMIT 1000');
  return {
    latestSeq: () => latest.get() as number,
    since: (seq) => since.all(seq) as Change[],
  };
}
