import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runMain, startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { bearer } from '../support/wait.js';

// Issue 14.3: one gateway per port and per database.
let gw: GatewayProcess;
const dirs: string[] = [];

test.before(async () => {
  gw = await startGateway();
});
test.after(async () => {
  await gw.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A config file in a fresh folder; dbPath defaults to a fresh database in it. */
function configFile(config: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-second-'));
  dirs.push(dir);
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify({ host: '127.0.0.1', port: 0, dbPath: join(dir, 'gw.db'), logLevel: 'warn', ...config }));
  return path;
}

async function chat(url: string, key: string): Promise<number> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: bearer(key), body: JSON.stringify({ model: 'sandbox/echo', messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

test('a second gateway on the same database refuses to start, naming the database and the gateway serving it', async () => {
  const second = await runMain(['serve', '--config', configFile({ dbPath: gw.dbPath })]);
  assert.is(second.code, 1, `exit code; stderr: ${second.stderr}`);
  assert.match(second.stderr, `database ${gw.dbPath} is already served by the gateway with pid ${gw.proc.pid}`);
  assert.match(second.stderr, `on 127.0.0.1:${gw.port}`);
});

/** A port nothing listens on now (the kernel's pick for a socket closed at once). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

test('a second gateway on the same port (another database) refuses to start, naming the port', async () => {
  // A port chosen by the operator, not 0: Linux never shares a port it picked itself, so the
  // quiet split only happens on a fixed port, as with the default 8080.
  const first = await startGateway({ port: await freePort() });
  try {
    const second = await runMain(['serve', '--config', configFile({ port: first.port })]);
    assert.is(second.code, 1, `exit code; stderr: ${second.stderr}`);
    assert.match(second.stderr, `port ${first.port} on 127.0.0.1 is already in use`);
    // Every new connection still reaches the one ledger that knows the key.
    const { key } = await first.orgAndKey();
    const statuses = await Promise.all(Array.from({ length: 40 }, () => chat(first.url, key)));
    assert.equal(statuses.filter((s) => s !== 200), []);
  } finally {
    await first.cleanup();
  }
});

test('the CLI keeps working beside the running gateway', async () => {
  const { orgId } = await gw.orgAndKey();
  const shown = await gw.cli('org', 'show', orgId);
  assert.is(shown.active_keys.length, 1);
});

test('a graceful stop releases the database: the same gateway starts again', async () => {
  assert.is(await gw.stop('SIGTERM'), 0);
  await gw.restart();
  const { key } = await gw.orgAndKey();
  assert.is(await chat(gw.url, key), 200);
});

test('a killed gateway does not block the next start (the lock dies with its process)', async () => {
  await gw.stop('SIGKILL');
  await gw.restart();
  const { key } = await gw.orgAndKey();
  assert.is(await chat(gw.url, key), 200);
  const second = await runMain(['serve', '--config', configFile({ dbPath: gw.dbPath })]);
  assert.is(second.code, 1, 'and the restarted gateway holds the database again');
  assert.match(second.stderr, `pid ${gw.proc.pid}`);
});

test.run();
