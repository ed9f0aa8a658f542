import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { DEFAULT_CATALOG_PATH, loadCatalog } from '../../src/catalog/load.js';

test('the shipped catalog has the required providers with India residency for Sarvam', () => {
  const cat = loadCatalog(loadConfig({ env: {} }), {});
  for (const id of ['openai', 'groq', 'together', 'fireworks', 'deepinfra', 'mistral', 'sarvam', 'sandbox']) assert.ok(cat.providers.has(id), id);
  assert.is(cat.providers.get('sarvam')!.entry.residency, 'in');
  assert.is(cat.providers.get('openai')!.configured, false, 'no key in the environment: not configured');
  assert.is(cat.providers.get('sandbox')!.configured, true, 'the sandbox needs no key');
  assert.ok(cat.models.get('sandbox/echo')!.usableRoutes.length === 1);
});

test('a provider key from its environment variable configures it; config overrides the base URL', () => {
  const cfg = loadConfig({ env: {}, overrides: { providers: { groq: { baseUrl: 'http://127.0.0.1:9/v1/' } } } });
  const cat = loadCatalog(cfg, { GROQ_API_KEY: 'gsk_x' });
  const groq = cat.providers.get('groq')!;
  assert.is(groq.configured, true);
  assert.is(groq.apiKey, 'gsk_x');
  assert.is(groq.baseUrl, 'http://127.0.0.1:9/v1', 'trailing slash trimmed');
  const llama = cat.models.get('llama-3.3-70b-instruct')!;
  assert.equal(llama.usableRoutes.map((r) => r.provider.id), ['groq']);
});

test('prices in ₹ per 1M tokens become micro-rupees per token; a route price overrides the model price', () => {
  const cat = loadCatalog(loadConfig({ env: {} }), {});
  const mini = cat.models.get('gpt-4o-mini')!.routes[0];
  assert.is(mini.inputMicrosPerUnit, 13.2);
  const groq = cat.models.get('llama-3.3-70b-instruct')!.routes.find((r) => r.provider.id === 'groq')!;
  assert.is(groq.outputMicrosPerUnit, 69.5);
});

test('a config entry for a provider the catalog lacks, or a broken catalog file, stops start-up', () => {
  assert.throws(() => loadCatalog(loadConfig({ env: {}, overrides: { providers: { nosuch: { apiKey: 'x' } } } }), {}),
    (e: unknown) => e instanceof ConfigError && /\/providers\/nosuch/.test((e as Error).message));
  const dir = mkdtempSync(join(tmpdir(), 'gw-cat-'));
  const data = JSON.parse(readFileSync(DEFAULT_CATALOG_PATH, 'utf8'));
  data.models[0].routes[0].provider = 'ghost';
  const p = join(dir, 'cat.json');
  writeFileSync(p, JSON.stringify(data));
  assert.throws(() => loadCatalog(loadConfig({ env: {}, overrides: { catalogFile: p } }), {}),
    (e: unknown) => e instanceof ConfigError && /unknown provider 'ghost'/.test((e as Error).message));
  data.models[0].routes = [];
  writeFileSync(p, JSON.stringify(data));
  assert.throws(() => loadCatalog(loadConfig({ env: {}, overrides: { catalogFile: p } }), {}),
    (e: unknown) => e instanceof ConfigError && /\/models\/0\/routes/.test((e as Error).message));
});

test('a route whose provider\'s wire format cannot serve the model\'s kind stops start-up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-cat-'));
  const data = JSON.parse(readFileSync(DEFAULT_CATALOG_PATH, 'utf8'));
  data.models.find((m: any) => m.id === 'gpt-4o-mini').routes[0].provider = 'sarvam-speech';
  const p = join(dir, 'cat.json');
  writeFileSync(p, JSON.stringify(data));
  assert.throws(() => loadCatalog(loadConfig({ env: {}, overrides: { catalogFile: p } }), {}),
    (e: unknown) => e instanceof ConfigError && /provider 'sarvam-speech' \(sarvam\) cannot serve chat model 'gpt-4o-mini'/.test((e as Error).message));
});

test('the sandbox is keyless and answered in process, and serves no audio model', () => {
  const cat = loadCatalog(loadConfig({ env: {} }), {});
  assert.is(cat.providers.get('sandbox')!.apiKey, null);
  assert.type(cat.providers.get('sandbox')!.inProcess, 'function');
  assert.is(cat.providers.get('openai')!.inProcess, null);
  const dir = mkdtempSync(join(tmpdir(), 'gw-cat-'));
  const data = JSON.parse(readFileSync(DEFAULT_CATALOG_PATH, 'utf8'));
  data.models.find((m: any) => m.kind === 'transcription').routes[0].provider = 'sandbox';
  const p = join(dir, 'cat.json');
  writeFileSync(p, JSON.stringify(data));
  assert.throws(() => loadCatalog(loadConfig({ env: {}, overrides: { catalogFile: p } }), {}),
    (e: unknown) => e instanceof ConfigError && /provider 'sandbox' \(sandbox\) cannot serve transcription model/.test((e as Error).message));
});

test('translates is for transcription models whose every provider translates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-cat-'));
  for (const [id, why] of [['saaras-v3', 'on Sarvam, whose adapter does not translate'], ['gpt-4o-mini', 'on a chat model']]) {
    const data = JSON.parse(readFileSync(DEFAULT_CATALOG_PATH, 'utf8'));
    data.models.find((m: any) => m.id === id).translates = true;
    const p = join(dir, `${id}.json`);
    writeFileSync(p, JSON.stringify(data));
    assert.throws(() => loadCatalog(loadConfig({ env: {}, overrides: { catalogFile: p } }), {}),
      (e: unknown) => e instanceof ConfigError && new RegExp(`model '${id}' is marked translates`).test((e as Error).message), why);
  }
});

test.run();
