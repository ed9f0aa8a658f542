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

test('routing, collections, custom endpoints and BYOK reach the store only through its interfaces (domain/stores)', () => {
  const areas = ['control/routing/', 'control/endpoints/', 'control/byok/'];
  assert.equal(violations((e) => areas.some((a) => e.from.startsWith(a)) && (e.toLayer === 'store' || e.target === 'better-sqlite3')), []);
});

test('the store imports no layer above it', () => {
  assert.equal(violations((e) => e.fromLayer === 'store' && e.toLayer !== null && !['store', 'lib', 'domain'].includes(e.toLayer)), []);
});

// ---- the control plane (issue 18): routes are adapters, services own the rules, SQL is the store's ----

const isRouteModule = (f: string) => /^control\/.*-routes\.ts$/.test(f);
const isService = (f: string) => /-service\.ts$/.test(f) && !f.startsWith('dataplane/');

test('SQL lives only in store/: no statement, prepare, exec or transaction outside it', () => {
  // A statement's keywords in a string, or the calls that run one; store/ is where both live.
  const SQL = /\.prepare\(|\.exec\(\s*['"`]|\.transaction\(|\.pragma\(|['"`]\s*(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE TABLE)\b/;
  const found = all.map((f) => relative(SRC, f))
    .filter((f) => !f.startsWith('store/') && SQL.test(readFileSync(join(SRC, f), 'utf8')));
  assert.equal(found, []);
});

test('route modules are adapters: a control route module imports no store (it calls a service)', () => {
  assert.equal(violations((e) => isRouteModule(e.from) && e.toLayer === 'store'), []);
});

test('services depend on store interfaces (domain/stores), never on the store or better-sqlite3', () => {
  assert.equal(violations((e) => isService(e.from) && (e.toLayer === 'store' || e.target === 'better-sqlite3')), []);
});

test('the MCP server calls services: it imports no store, route module or HTTP layer', () => {
  assert.equal(violations((e) => e.fromLayer === 'mcp' && (e.toLayer === 'store' || e.toLayer === 'http' || isRouteModule(e.target))), []);
});

test('the monitor imports no route module, HTTP layer or MCP server', () => {
  assert.equal(violations((e) => e.fromLayer === 'monitoring' && (e.toLayer === 'http' || e.toLayer === 'mcp' || isRouteModule(e.target))), []);
});

test('the ledger imports only lib, domain, errors and the store', () => {
  assert.equal(violations((e) => e.fromLayer === 'ledger' && e.toLayer !== null && !['ledger', 'lib', 'domain', 'errors', 'store'].includes(e.toLayer)), []);
});

test('the catalog imports only config, providers, domain, lib and errors', () => {
  assert.equal(violations((e) => e.fromLayer === 'catalog' && e.toLayer !== null
    && !['catalog', 'config', 'providers', 'domain', 'lib', 'errors'].includes(e.toLayer)), []);
});

test('billing (prices and cost) imports only the catalog, providers, domain, lib and errors', () => {
  assert.equal(violations((e) => e.fromLayer === 'billing' && e.toLayer !== null
    && !['billing', 'catalog', 'providers', 'domain', 'lib', 'errors'].includes(e.toLayer)), []);
});

test('store interfaces are types only: domain/stores imports no engine', () => {
  assert.equal(violations((e) => e.from.startsWith('domain/stores/') && e.toLayer === null), []);
});

test('the areas with a service reach the store only through its interfaces (domain/stores)', () => {
  const areas = ['control/keys/', 'control/teams/', 'control/workspaces/', 'control/account/', 'control/usage/', 'control/monitoring/', 'control/sign-in/'];
  assert.equal(violations((e) => areas.some((a) => e.from.startsWith(a)) && e.toLayer === 'store'), []);
});

test('the configuration is read first: it imports only lib', () => {
  assert.equal(violations((e) => e.fromLayer === 'config' && e.toLayer !== null && !['config', 'lib'].includes(e.toLayer)), []);
});

test('the guardrails (detectors, policy at work, stream check) import only lib, errors and themselves', () => {
  assert.equal(violations((e) => e.fromLayer === 'guardrails' && e.toLayer !== null && !['guardrails', 'lib', 'errors'].includes(e.toLayer)), []);
});

test('the format translators never import the data plane (it calls them)', () => {
  assert.equal(violations((e) => e.fromLayer === 'formats' && e.toLayer === 'dataplane'), []);
});

/** The folders (and top-level files) of src/ that import one another in a circle: Tarjan's strongly connected components. */
function folderCycles(): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (e.toLayer === null || e.toLayer === e.fromLayer) continue;
    if (!next.has(e.fromLayer)) next.set(e.fromLayer, new Set());
    next.get(e.fromLayer)!.add(e.toLayer);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

test('no folders import one another in a circle', () => {
  const cycles = folderCycles();
  // Each cycle with the import lines that close it, so the failure says what to move.
  const shown = cycles.map((c) => `${c.join(' <-> ')}: ${violations((e) => e.toLayer !== null && e.fromLayer !== e.toLayer
    && c.includes(e.fromLayer) && c.includes(e.toLayer)).join('; ')}`);
  assert.equal(shown, []);
});

test('the store and the data plane never read the wall clock: they are handed the time or the Clock', () => {
  const readers = all.filter((f) => ['store', 'dataplane'].includes(relative(SRC, f).split('/')[0]) && /\bDate\.now\b|new Date\(\)/.test(readFileSync(f, 'utf8')));
  assert.equal(readers.map((f) => relative(SRC, f)), []);
});

test('generic code reads a provider\'s capabilities, never the sandbox\'s name', () => {
  // The catalog schema lists the provider kinds; the sandbox's own folder and the registry name it.
  const allowed = new Set(['catalog/schema.ts', 'providers/registry.ts']);
  const naming = all.map((f) => relative(SRC, f))
    .filter((f) => !f.startsWith('providers/sandbox/') && !allowed.has(f) && /['"`]sandbox['"`]/.test(readFileSync(join(SRC, f), 'utf8')));
  assert.equal(naming, []);
});

test('no source file grows past 600 lines', () => {
  const big = all.filter((f) => readFileSync(f, 'utf8').split('\n').length > 600).map((f) => relative(SRC, f));
  assert.equal(big, []);
});

test.run();
