import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

// Loading ioredis leaves String.prototype in V8's dictionary mode (its VerbatimString extends
// String), which slows every string method call in the process; src/cluster/ioredis.ts undoes
// it. Checked in a child with V8's own %HasFastProperties.

const probe = (module: string) => spawnSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e',
  `await import(${JSON.stringify(module)}); console.log(%HasFastProperties(String.prototype))`], { encoding: 'utf8' });

test('plain ioredis leaves String.prototype slow (what the module works around)', () => {
  const r = probe('ioredis');
  assert.is(r.stdout.trim(), 'false', r.stderr);
});

test('through src/cluster/ioredis.js, String.prototype is fast again', () => {
  const r = probe(new URL('../../src/cluster/ioredis.js', import.meta.url).href);
  assert.is(r.stdout.trim(), 'true', r.stderr);
});

test.run();
