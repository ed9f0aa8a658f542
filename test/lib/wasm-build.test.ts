import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The committed WebAssembly bytes (src/lib/wasm/*.ts) are what their .wat sources assemble to.
test('src/lib/wasm/*.ts match their .wat sources', () => {
  const script = fileURLToPath(new URL('../../../scripts/build-wasm.js', import.meta.url));
  try {
    execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' });
  } catch (e) {
    assert.unreachable(String((e as { stderr?: Buffer }).stderr ?? e));
  }
});

test.run();
