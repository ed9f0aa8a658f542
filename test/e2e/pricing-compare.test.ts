// GET /v1/pricing/compare against a stand-in for the other router's public model list on 127.0.0.1.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';

interface Source {
  url: string;
  fetches: number;
  answer: { status: number; body: string };
  close(): Promise<void>;
}

async function startSource(): Promise<Source> {
  const src = {
    fetches: 0,
    answer: { status: 200, body: JSON.stringify({ data: [
      { id: 'meta-llama/llama-3.3-70b-instruct', pricing: { prompt: '0.0000006', completion: '0.0000008' } },
      { id: 'openai/gpt-4o-mini', pricing: { prompt: 0.00000015, completion: 0.0000006, input_cache_read: '0.000000075' } },
      { id: 'sarvamai/sarvam-m', pricing: { prompt: '0', completion: '0' } },
      { id: 'broken', pricing: { prompt: 'n/a' } },
    ] }) },
  };
  const server: Server = createServer((req, res) => {
    src.fetches++;
    res.writeHead(src.answer.status, { 'content-type': 'application/json' }).end(src.answer.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return Object.assign(src, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/models`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

let source: Source;
let gw: GatewayProcess;

test.before(async () => {
  source = await startSource();
  gw = await startGateway({ pricingCompare: { sourceUrl: source.url, refreshMs: 1_000 } });
});
test.after(async () => {
  await gw.cleanup();
  await source.close();
});

const compare = () => fetch(`${gw.url}/v1/pricing/compare`);

test('the catalog beside the other router\'s prices in INR, fetched once and then served from the cache', async () => {
  const r = await compare();
  assert.is(r.status, 200);
  const body = await r.json() as any;
  assert.equal([body.source, body.usd_inr, body.stale], [source.url, 88, false]);
  const byModel = Object.fromEntries(body.data.map((e: any) => [e.model, e]));
  assert.equal(Object.keys(byModel).sort(), ['claude-3-5-haiku', 'claude-haiku-4-5', 'claude-opus-4-1', 'claude-opus-4-5', 'claude-sonnet-4',
    'claude-sonnet-4-5', 'gemini-2.0-flash', 'gemini-2.5-flash', 'gemini-2.5-flash-lite', 'gemini-2.5-pro', 'gpt-4o', 'gpt-4o-mini',
    'llama-3.1-8b-instruct', 'llama-3.3-70b-instruct', 'mistral-small', 'sarvam-m',
    'text-embedding-3-small'], 'every catalog model with a compare id');
  assert.equal(byModel['llama-3.3-70b-instruct'], {
    model: 'llama-3.3-70b-instruct', compare_id: 'meta-llama/llama-3.3-70b-instruct', gateway: { input: 60, output: 70 },
    other: { input: 52.8, output: 70.4 }, difference_pct: { input: 13.6, output: -0.6 },
  });
  assert.equal(byModel['gpt-4o-mini'].difference_pct, { input: 0, output: 0 });
  assert.equal([byModel['gpt-4o-mini'].gateway, byModel['gpt-4o-mini'].other], [{ input: 13.2, output: 52.8, cached_input: 6.6 },
    { input: 13.2, output: 52.8, cached_input: 6.6 }], 'cached-input prices on both sides where each has one');
  assert.equal(byModel['sarvam-m'].difference_pct, { input: null, output: null }, 'no percentage of a free price');
  assert.equal([byModel['gpt-4o'].other, byModel['gpt-4o'].difference_pct], [null, null], 'not listed there');
  await compare();
  assert.is(source.fetches, 1);
});

test('a refresh that fails serves the last figures marked stale, and is not retried on every read', async () => {
  await new Promise((r) => setTimeout(r, 1_100));
  source.answer = { status: 502, body: 'bad gateway' };
  const before = source.fetches;
  const body = await (await compare()).json() as any;
  assert.is(body.stale, true);
  assert.equal(body.data.find((e: any) => e.model === 'llama-3.3-70b-instruct').other, { input: 52.8, output: 70.4 });
  await compare();
  assert.is(source.fetches, before + 1);
  assert.ok(gw.lines.some((l) => l.includes('price comparison source could not be read') && l.includes('HTTP 502')));
});

test('with no figures yet, an unreachable, oversized or disabled source is 503 unavailable', async () => {
  const down = await startSource();
  down.answer = { status: 200, body: JSON.stringify({ data: Array.from({ length: 100 }, (_, i) => ({ id: `m${i}`, pricing: { prompt: '1', completion: '1' } })) }) };
  const oversized = await startGateway({ pricingCompare: { sourceUrl: down.url, maxBytes: 1_024 } });
  const off = await startGateway({ pricingCompare: { sourceUrl: '' } });
  const gone = await startSource();
  await gone.close();
  const unreachable = await startGateway({ pricingCompare: { sourceUrl: gone.url, timeoutMs: 2_000 } });
  try {
    for (const [g, message] of [[oversized, /source could not be read/], [off, /turned off/], [unreachable, /source could not be read/]] as const) {
      const r = await fetch(`${g.url}/v1/pricing/compare`);
      assert.is(r.status, 503);
      const e = (await r.json() as any).error;
      assert.is(e.code, 'unavailable');
      assert.match(e.message, message);
    }
    assert.ok(oversized.lines.some((l) => l.includes('larger than 1024 bytes')));
  } finally {
    await oversized.cleanup();
    await off.cleanup();
    await unreachable.cleanup();
    await down.close();
  }
});

test.run();
