import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMain, startGateway, type GatewayProcess } from '../support/gateway-process.js';

// Issue 14.16 and 14.17: the operator CLI finds the running gateway's database, says which one it
// used, and applies the API's key rules.
let gw: GatewayProcess;
let dir: string;
let elsewhere: string;
let relConfig: string;

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
  elsewhere = join(dir, 'some', 'other', 'folder');
  mkdirSync(elsewhere, { recursive: true });
  // A config whose dbPath is relative: the gateway and the CLI must agree on where it is.
  relConfig = join(dir, 'config.json');
  writeFileSync(relConfig, JSON.stringify({ host: '127.0.0.1', port: 0, dbPath: 'data/rel.db', logLevel: 'warn' }));
  gw = await startGateway({ dbPath: join(dir, 'data', 'rel.db') });
});
test.after(async () => {
  await gw.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const json = (stdout: string) => JSON.parse(stdout.trim());

test('run from another folder, the CLI writes to the database the gateway serves and says so on stderr', async () => {
  const run = await runMain(['--config', relConfig, '--json', 'org', 'create', 'from-elsewhere'], { cwd: elsewhere });
  assert.is(run.code, 0, run.stderr);
  const org = json(run.stdout); // stdout stays pure JSON
  assert.match(run.stderr, `database: ${join(dir, 'data', 'rel.db')} (served by the gateway with pid ${gw.proc.pid} on 127.0.0.1:${gw.port})`);
  assert.not.match(run.stderr, 'warning');
  const shown = await gw.cli('org', 'show', org.id);
  assert.is(shown.name, 'from-elsewhere', 'the gateway\'s database has the org');
});

test('a relative --db is taken from the folder the command was typed in (npm passes it as INIT_CWD)', async () => {
  const run = await runMain(['--db', 'data/rel.db', '--json', 'org', 'create', 'typed'], { cwd: elsewhere, env: { INIT_CWD: dir } });
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, `database: ${join(dir, 'data', 'rel.db')} (served by`);
});

test('the CLI warns when no running gateway serves the database it used', async () => {
  const run = await runMain(['--db', join(dir, 'unserved.db'), '--json', 'org', 'create', 'lonely'], { cwd: elsewhere });
  assert.is(run.code, 0, run.stderr);
  json(run.stdout);
  assert.match(run.stderr, `database: ${join(dir, 'unserved.db')}\n`);
  assert.match(run.stderr, 'warning: no running gateway serves this database');
});

async function keyCreate(db: string, ...args: string[]) {
  return runMain(['--db', db, '--json', 'key', 'create', ...args]);
}

test('gw key create applies the API\'s rules: a name, unique among active keys, at most 5 active keys; --force overrides', async () => {
  const db = join(dir, 'keys.db');
  const org = json((await runMain(['--db', db, '--json', 'org', 'create', 'rules'])).stdout).id as string;
  const noName = await keyCreate(db, '--org', org);
  assert.is(noName.code, 2);
  assert.match(noName.stderr, 'key create needs --name NAME');
  for (let i = 1; i <= 5; i++) assert.is((await keyCreate(db, '--org', org, '--name', `k${i}`)).code, 0);
  const dup = await keyCreate(db, '--org', org, '--name', 'k1');
  assert.is(dup.code, 1);
  assert.match(dup.stderr, /duplicate_key_name|cap/);
  const sixth = await keyCreate(db, '--org', org, '--name', 'k6');
  assert.is(sixth.code, 1);
  assert.match(sixth.stderr, 'gw: cap: An organisation can have at most 5 active keys');
  const forced = await keyCreate(db, '--org', org, '--name', 'k1', '--force');
  assert.is(forced.code, 0, forced.stderr);
  assert.is(json(forced.stdout).name, 'k1');
  const revoked = await runMain(['--db', db, '--json', 'key', 'revoke', json(forced.stdout).id]);
  assert.is(revoked.code, 0);
  // Back at 5 active keys, one of them named k1.
  const sameName = await keyCreate(db, '--org', org, '--name', 'k1');
  assert.match(sameName.stderr, 'gw: cap:');
});

test('a duplicate name is refused under the cap too', async () => {
  const db = join(dir, 'dup.db');
  const org = json((await runMain(['--db', db, '--json', 'org', 'create', 'dup'])).stdout).id as string;
  assert.is((await keyCreate(db, '--org', org, '--name', 'laptop')).code, 0);
  const dup = await keyCreate(db, '--org', org, '--name', 'laptop');
  assert.is(dup.code, 1);
  assert.match(dup.stderr, "gw: duplicate_key_name: An active key named 'laptop' already exists");
});

test('gw --version prints the version; gw org and gw key alone list their subcommands', async () => {
  const version = await runMain(['--version']);
  assert.is(version.code, 0);
  assert.match(version.stdout, /^gw \d+\.\d+\.\d+\n$/);
  const org = await runMain(['org']);
  assert.is(org.code, 0, org.stderr);
  for (const sub of ['org create', 'org credit', 'org show']) assert.match(org.stdout, sub);
  assert.not.match(org.stdout, 'key create');
  const key = await runMain(['key']);
  assert.is(key.code, 0, key.stderr);
  for (const sub of ['key create', 'key revoke', 'key limits', '--force']) assert.match(key.stdout, sub);
});

test.run();
