import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { USAGE_FIELDS, type UsageKind, type UsageRecord } from '../../src/domain/usage-record.js';
import { decodeBatch, UsageBatchBuilder } from '../../src/ledger/usage-batch.js';
import { openDatabase } from '../../src/store/database.js';
import { usageBatchWriter } from '../../src/store/usage.js';

// The usage record's one definition (src/domain/usage-record.ts) against the usage table that
// schema.sql's migrations build: neither can gain, lose or retype a column without the other.

/** What SQLite reports for a column of each kind: its declared type, and whether it is NOT NULL. */
const COLUMN_OF: Record<UsageKind, { type: string; notnull: 0 | 1 }> = {
  text: { type: 'TEXT', notnull: 1 },
  'text-unique': { type: 'TEXT', notnull: 1 },
  'text?': { type: 'TEXT', notnull: 0 },
  int: { type: 'INTEGER', notnull: 1 },
  micros: { type: 'INTEGER', notnull: 1 },
  ms: { type: 'REAL', notnull: 1 },
  'ms?': { type: 'REAL', notnull: 0 },
  bool: { type: 'INTEGER', notnull: 1 },
};

interface ColumnInfo { name: string; type: string; notnull: 0 | 1 }

function tableColumns(): ColumnInfo[] {
  const db = openDatabase(':memory:');
  try {
    return db.prepare('PRAGMA table_info(usage)').all() as ColumnInfo[];
  } finally {
    db.close();
  }
}

test('every column of the usage table but its id is a field of the record, and every field a column', () => {
  const columns = tableColumns().map((c) => c.name).filter((c) => c !== 'id');
  assert.equal([...columns].sort(), USAGE_FIELDS.map((f) => f.column).sort());
});

test('fields are in the table\'s column order, so a new column goes at the end of both', () => {
  assert.equal(tableColumns().map((c) => c.name).filter((c) => c !== 'id'), USAGE_FIELDS.map((f) => f.column));
});

test('each field\'s kind matches its column\'s type and NOT NULL', () => {
  const byName = new Map(tableColumns().map((c) => [c.name, c]));
  for (const f of USAGE_FIELDS) {
    const c = byName.get(f.column)!;
    assert.equal({ column: f.column, type: c.type, notnull: c.notnull }, { column: f.column, ...COLUMN_OF[f.kind] });
  }
});

test('each column is named as its field, in snake case', () => {
  for (const f of USAGE_FIELDS) assert.is(f.column, f.name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
});

test('a record crosses the batch encoding and the insert with every field in its own column', () => {
  // Every field a different value, so that two fields swapped anywhere on the way would show.
  const record = {} as Record<string, unknown>;
  USAGE_FIELDS.forEach((f, i) => {
    record[f.name] = f.kind === 'bool' ? i % 2 === 0 : f.kind.startsWith('text') ? `${f.name}-${i}` : f.kind.startsWith('ms') ? i + 0.25 : 1_000 + i;
  });
  const b = new UsageBatchBuilder();
  b.add(record as unknown as UsageRecord);
  const db = openDatabase(':memory:');
  try {
    assert.is(usageBatchWriter(db)(decodeBatch(structuredClone(b.take()))), 1);
    const row = db.prepare('SELECT * FROM usage').get() as Record<string, unknown>;
    for (const f of USAGE_FIELDS) {
      const want = f.kind === 'bool' ? (record[f.name] ? 1 : 0) : record[f.name];
      assert.is(row[f.column], want, f.column);
    }
  } finally {
    db.close();
  }
});

test('nullable fields cross as null', () => {
  const record = {} as Record<string, unknown>;
  for (const f of USAGE_FIELDS) record[f.name] = f.kind.endsWith('?') ? null : f.kind === 'bool' ? false : f.kind.startsWith('text') ? 'x' : 0;
  const b = new UsageBatchBuilder();
  b.add(record as unknown as UsageRecord);
  const [row] = decodeBatch(b.take());
  USAGE_FIELDS.forEach((f, i) => { if (f.kind.endsWith('?')) assert.is(row[i], null, f.column); });
});

test.run();
