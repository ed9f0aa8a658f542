import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from '../support/gateway-process.js';
import { SERVE_NODE_FLAGS } from '../../bench/gateway-target.js';

// `npm start` and `gw serve` run V8 with the gateway's heap flag (docs/configuration.md, *The V8
// heap flag*: without it a gateway that sat idle runs a full collection about every 100 ms once
// agent-sized requests arrive), and the bench measures the gateway with the same flags.
let dir: string;
test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'gw-flags-'));
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a launcher in its own process group until the gateway logs "listening"; returns that line's fields. */
function listeningLine(command: string, args: string[], name: string): Promise<Record<string, unknown>> {
  const config = join(dir, `${name}.json`);
  writeFileSync(config, JSON.stringify({ host: '127.0.0.1', port: 0, dbPath: join(dir, `${name}.db`), logLevel: 'info' }));
  const proc = spawn(command, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GW_CONFIG: config, GW_DB: undefined, INIT_CWD: undefined } });
  const seen: string[] = [];
  createInterface({ input: proc.stderr! }).on('line', (l) => seen.push(l));
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${seen.join('\n')}`)), 60_000);
    proc.once('exit', (code) => reject(new Error(`${name} exited with ${code}:\n${seen.join('\n')}`)));
    createInterface({ input: proc.stdout! }).on('line', (l) => {
      seen.push(l);
      if (!l.includes('"msg":"listening"')) return;
      clearTimeout(timer);
      resolve(JSON.parse(l) as Record<string, unknown>);
    });
  }).finally(() => {
    try {
      process.kill(-proc.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  });
}

test('npm start runs the gateway with the heap flag', async () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.is(pkg.scripts.start, `node ${SERVE_NODE_FLAGS.join(' ')} dist/src/main.js serve`);
  const line = await listeningLine('npm', ['start', '--silent'], 'npm-start');
  assert.is(line.nodeFlags, SERVE_NODE_FLAGS.join(' '));
});

test('gw serve (bin/gw.js run as a program) runs it with the same flag', async () => {
  const line = await listeningLine(join(ROOT, 'bin', 'gw.js'), ['serve'], 'gw-serve');
  assert.is(line.nodeFlags, SERVE_NODE_FLAGS.join(' '));
});

test.run();
