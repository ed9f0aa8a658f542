// Every operation in the OpenAPI document, called with "constructor", "__proto__" and
// "toString" wherever a client can put a name: path parameters, query parameters, every string
// of a body built from the operation's schema (with a real model, and without), a body of that
// one member, and the gateway's headers; then valid inference requests with the name in one
// header, extension or member at a time (the bodies built from schemas are mostly refused
// before a header is read). Tables looked up by such a name as an object's members find
// Object.prototype's (x-gw-guardrails: block=constructor was a 500); this holds the whole API
// to answering them as unknown names: never a 5xx, except the two operations that say their
// feature is unavailable here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { signIn, type Browser } from '../support/session.js';

let gw: GatewayProcess;
let key: string;
let browser: Browser;
let spec: { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
}

const NAMES = ['constructor', '__proto__', 'toString'];
/** Answers that say a feature is not available on this gateway (no payment webhook secret; no price source offline). */
const UNAVAILABLE = new Set(['billing_disabled', 'unavailable']);

test.before(async () => {
  gw = await startGateway({});
  ({ key } = await gw.orgAndKey());
  browser = await signIn(gw, 'owner@example.com');
  spec = await (await fetch(`${gw.url}/openapi.json`)).json() as typeof spec;
});
test.after(() => gw.cleanup());

/** A value of `schema` with `name` for every string in it (enums included: a name it does not list). */
function valueOf(schema: Schema | undefined, name: string, depth = 0): unknown {
  if (schema === undefined || depth > 4) return name;
  if (schema.$ref !== undefined) return valueOf(spec.components?.schemas?.[schema.$ref.split('/').pop()!], name, depth + 1);
  if (schema.enum !== undefined) return name;
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives !== undefined) return valueOf(alternatives[0], name, depth + 1);
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'string': return name;
    case 'integer': case 'number': return 1;
    case 'boolean': return true;
    case 'array': return [valueOf(schema.items, name, depth + 1)];
    default: {
      const o: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(schema.properties ?? { [name]: undefined })) o[k] = valueOf(v, name, depth + 1);
      return o;
    }
  }
}

test('no operation answers a 5xx for a name like a member of every object', async () => {
  const failed: string[] = [];
  let calls = 0;
  for (const [path, ops] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      for (const name of NAMES) {
        const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => `${p.name}=${encodeURIComponent(name)}`).join('&');
        const url = `${gw.url}${path.replace(/\{[^}]+\}/g, name)}${query === '' ? '' : `?${query}`}`;
        const built = valueOf(op.requestBody?.content?.['application/json']?.schema, name) as Record<string, unknown>;
        const bodies: (unknown | undefined)[] = method === 'get' || method === 'delete' ? [undefined]
          : [built, { ...built, model: 'sandbox/echo' }, { [name]: name }];
        for (const [i, body] of bodies.entries()) {
          for (const auth of ['key', 'session']) {
            const headers: Record<string, string> = auth === 'key' ? { authorization: `Bearer ${key}` } : { cookie: browser.cookie, origin: gw.url };
            if (body !== undefined) headers['content-type'] = 'application/json';
            if (i === 2) {
              headers['x-gw-cache'] = name;
              headers['x-gw-guardrails'] = `block=${name}`;
            }
            const res = await fetch(url, { method: method.toUpperCase(), headers, body: body === undefined ? undefined : JSON.stringify(body) });
            const text = await res.text();
            calls++;
            if (res.status < 500) continue;
            let code = '';
            try {
              code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? '';
            } catch { /* not JSON: a failure */ }
            if (res.status === 503 && UNAVAILABLE.has(code)) continue;
            failed.push(`${res.status} ${method.toUpperCase()} ${url} (${auth}) ${JSON.stringify(body)?.slice(0, 200)}: ${text.slice(0, 200)}`);
          }
        }
      }
    }
  }
  assert.ok(calls > 800, `${calls} calls`);
  assert.equal(failed, []);
});

/** Requests the inference routes take, each a valid one but for the name put in one place. */
const VALID: [string, Record<string, unknown>][] = [
  ['/v1/chat/completions', { model: 'sandbox/echo', messages: [{ role: 'user', content: 'hi' }] }],
  ['/v1/responses', { model: 'sandbox/echo', input: 'hi' }],
  ['/v1/messages', { model: 'sandbox/echo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }],
];
const EXTENSIONS = ['provider', 'data_policy', 'guardrails', 'cache', 'upstream_key', 'optimize', 'user', 'service_tier', 'reasoning_effort',
  'tool_choice', 'response_format', 'stop', 'modalities'];

test('a valid inference request with the name in a header, an extension or a common member is answered, or refused with a 4xx', async () => {
  const failed: string[] = [];
  for (const [path, valid] of VALID) {
    for (const name of NAMES) {
      const variants: [Record<string, string>, Record<string, unknown>][] = [
        [{ 'x-gw-cache': name }, valid], [{ 'x-gw-guardrails': `block=${name}` }, valid], [{ 'x-gw-guardrails': `redact=${name}` }, valid],
        [{}, { ...valid, metadata: { [name]: name } }], [{}, { ...valid, stream: true, stream_options: { [name]: true } }],
        ...EXTENSIONS.map((k): [Record<string, string>, Record<string, unknown>] => [{}, { ...valid, [k]: name }]),
        ...EXTENSIONS.map((k): [Record<string, string>, Record<string, unknown>] => [{}, { ...valid, [k]: { [name]: name } }]),
      ];
      for (const [extra, body] of variants) {
        const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra },
          body: JSON.stringify(body) });
        const text = await res.text();
        if (res.status >= 500) failed.push(`${res.status} ${path} ${JSON.stringify(extra)} ${JSON.stringify(body)}: ${text.slice(0, 200)}`);
      }
    }
  }
  assert.equal(failed, []);
});

test.run();
