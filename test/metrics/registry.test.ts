import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Registry } from '../../src/metrics/registry.js';
import { parsePromText, sampleValue } from '../support/prom-text.js';

test('a counter with labels renders HELP, TYPE and one escaped series per label set, read back exactly by the parser', () => {
  const reg = new Registry();
  const c = reg.counter('x_requests_total', 'Requests.\nBy path \\ status.', ['path', 'code']);
  c.child('/a', '').inc();
  c.child('/a', '').inc(2);
  c.child('say "hi"\\\n', 'e').inc();
  const text = reg.render();
  assert.ok(text.startsWith('# HELP x_requests_total Requests.\\nBy path \\\\ status.\n# TYPE x_requests_total counter\n'), text);
  const f = parsePromText(text);
  assert.is(f.get('x_requests_total')!.help, 'Requests.\nBy path \\ status.');
  assert.is(sampleValue(f, 'x_requests_total', { path: '/a', code: '' }), 3);
  assert.is(sampleValue(f, 'x_requests_total', { path: 'say "hi"\\\n', code: 'e' }), 1);
});

test('a histogram renders cumulative buckets, +Inf equal to the count, and the sum', () => {
  const reg = new Registry();
  const h = reg.histogram('x_seconds', 'Time.', ['route'], [0.1, 1, 0.5]).child('/a');
  for (const v of [0.05, 0.1, 0.3, 0.7, 2, 5]) h.observe(v);
  const f = parsePromText(reg.render());
  const le = (b: string) => sampleValue(f, 'x_seconds_bucket', { route: '/a', le: b });
  assert.equal([le('0.1'), le('0.5'), le('1'), le('+Inf')], [2, 3, 4, 6], 'an observation equal to a bound is in that bucket');
  assert.is(sampleValue(f, 'x_seconds_count', { route: '/a' }), 6);
  assert.ok(Math.abs(sampleValue(f, 'x_seconds_sum', { route: '/a' })! - 8.15) < 1e-9);
});

test('a divisor exposes integer micro-units in the base unit without float drift', () => {
  const reg = new Registry();
  const c = reg.counter('x_inr_total', 'Rupees.');
  c.divisor = 1e6;
  for (let i = 0; i < 10; i++) c.child().inc(100_001);
  assert.is(sampleValue(parsePromText(reg.render()), 'x_inr_total'), 1.00001);
});

test('a gauge collected at scrape time shows the value read then', () => {
  const reg = new Registry();
  let depth = 3;
  const g = reg.gauge('x_depth', 'Depth.');
  g.collect = () => g.child().set(depth);
  assert.is(sampleValue(parsePromText(reg.render()), 'x_depth'), 3);
  depth = 7;
  assert.is(sampleValue(parsePromText(reg.render()), 'x_depth'), 7);
});

test('names that break Prometheus conventions are refused when declared', () => {
  const reg = new Registry();
  assert.throws(() => reg.counter('x_requests', 'no _total'), /_total/);
  assert.throws(() => reg.gauge('x-depth', 'dash'), /Prometheus name/);
  assert.throws(() => reg.histogram('x_h', 'le', ['le'], [1]), /label le/);
  reg.gauge('x_twice', 'once');
  assert.throws(() => reg.gauge('x_twice', 'again'), /twice/);
});

test.run();
