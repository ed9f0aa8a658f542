import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';
import { ROOT } from './support/gateway-process.js';

// The dependency rules of STYLE.md, read from the import lines of src/.
const SRC = join(ROOT, 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

interface Edge { from: string; fromLayer: string; target: string; toLayer: string | null }

const IMPORT_RE = /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm;
const all = files(SRC);
const edges: Edge[] = [];
for (const f of all) {
  const text = readFileSync(f, 'utf8');
  const fromLayer = relative(SRC, f).split('/')[0].replace(/\.ts$/, '');
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2];
    if (spec.startsWith('.')) {
      const target = relative(SRC, resolve(dirname(f), spec));
      edges.push({ from: relative(SRC, f), fromLayer, target, toLayer: target.split('/')[0].replace(/\.js$/, '') });
    } else edges.push({ from: relative(SRC, f), fromLayer, target: spec, toLayer: null });
  }
}

function violations(pred: (e: Edge) => boolean): string[] {
  return edges.filter(pred).map((e) => `${e.from} -> ${e.target}`);
}

test('lib imports nothing of ours outside lib', () => {
  assert.equal(violations((e) => e.fromLayer === 'lib' && e.toLayer !== null && e.toLayer !== 'lib'), []);
});

test('domain types import only lib and errors', () => {
  assert.equal(violations((e) => e.fromLayer === 'domain' && e.toLayer !== null && !['lib', 'domain', 'errors'].includes(e.toLayer)), []);
});

test('providers import only errors, lib and themselves', () => {
  assert.equal(violations((e) => e.fromLayer === 'providers' && e.toLayer !== null && !['providers', 'errors', 'lib'].includes(e.toLayer)), []);
});

test('the data plane never imports the control plane or the store', () => {
  assert.equal(violations((e) => e.fromLayer === 'dataplane' && (e.toLayer === 'control' || e.toLayer === 'store')), []);
});

test('the control plane never imports the data plane or the HTTP layer', () => {
  assert.equal(violations((e) => e.fromLayer === 'control' && (e.toLayer === 'dataplane' || e.toLayer === 'http')), []);
});

test('the data plane never imports the HTTP layer', () => {
  assert.equal(violations((e) => e.fromLayer === 'dataplane' && e.toLayer === 'http'), []);
});

test('only store/ imports better-sqlite3', () => {
  assert.equal(violations((e) => e.target === 'better-sqlite3' && e.fromLayer !== 'store'), []);
});

test('only http/ imports uWebSockets.js', () => {
  assert.equal(violations((e) => e.target === 'uWebSockets.js' && e.fromLayer !== 'http'), []);
});

// The one package allowed in is `socks`, the SOCKS5 handshake of upstream/connector.ts (issue 18:
// a library where one is well kept, and the same one the control plane's agents use).
test('the upstream HTTP client imports only node, itself and the socks library', () => {
  assert.equal(violations((e) => e.fromLayer === 'upstream' && (e.toLayer !== null ? e.toLayer !== 'upstream' : !e.target.startsWith('node:') && e.target !== 'socks')), []);
});

test('only the data plane uses the upstream HTTP client', () => {
  assert.equal(violations((e) => e.toLayer === 'upstream' && e.fromLayer !== 'upstream' && e.fromLayer !== 'dataplane'), []);
});

test('the store imports no layer above it', () => {
  assert.equal(violations((e) => e.fromLayer === 'store' && e.toLayer !== null && !['store', 'lib', 'domain'].includes(e.toLayer)), []);
});

test('no source file grows past 600 lines', () => {
  const big = all.filter((f) => readFileSync(f, 'utf8').split('\n').length > 600).map((f) => relative(SRC, f));
  assert.equal(big, []);
});

test.run();
