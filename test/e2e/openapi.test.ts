import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

let gw: GatewayProcess;
let doc: any;

test.before(async () => {
  gw = await startGateway();
  doc = await (await fetch(`${gw.url}/openapi.json`)).json();
});
test.after(async () => {
  await gw.cleanup();
});

/** Follows a local $ref (#/components/...) to what it names. */
function resolve(schema: any): any {
  if (typeof schema?.$ref !== 'string') return schema;
  return resolve(schema.$ref.slice(2).split('/').reduce((o: any, k: string) => o?.[k], doc));
}

/** Every operation of the document with its method and path. */
const operations = (): { method: string; path: string; op: any }[] =>
  Object.entries(doc.paths).flatMap(([path, ops]: [string, any]) => Object.entries(ops).map(([method, op]) => ({ method, path, op })));

test('GET /openapi.json is an OpenAPI 3.1 document with its security schemes', () => {
  assert.is(doc.openapi, '3.1.0');
  assert.ok(doc.info.title && doc.info.version);
  // apiKeyHeader: x-api-key, as Anthropic clients send the key on /v1/messages.
  assert.equal(Object.keys(doc.components.securitySchemes).sort(), ['apiKeyHeader', 'bearerAuth', 'sessionCookie']);
});

test('it lists the inference, catalog and dashboard routes, with path parameters declared', () => {
  for (const [path, method] of [['/v1/chat/completions', 'post'], ['/v1/embeddings', 'post'], ['/v1/models', 'get'], ['/health', 'get'],
    ['/me', 'get'], ['/me/keys', 'post'], ['/me/keys/{id}', 'delete'], ['/me/members', 'post'], ['/me/workspaces/{id}', 'patch'],
    ['/me/activity/events', 'get'], ['/auth/{provider}', 'get']] as const) {
    assert.ok(doc.paths[path]?.[method], `${method} ${path}`);
  }
  assert.equal(doc.paths['/me/keys/{id}'].patch.parameters.map((p: any) => p.name), ['id']);
  assert.equal(doc.paths['/v1/chat/completions'].post.security, [{ bearerAuth: [] }]);
  assert.equal(doc.paths['/me'].get.security, [{ sessionCookie: [] }]);
});

test('request schemas are plain JSON Schema, and sign-in routes are documented as redirects', () => {
  const chat = resolve(doc.paths['/v1/chat/completions'].post.requestBody.content['application/json'].schema);
  assert.ok(chat.required.includes('model') && chat.required.includes('messages'));
  assert.not.ok(JSON.stringify(doc).includes('[Kind]'));
  assert.ok(doc.paths['/auth/link'].get.responses['302']);
  assert.not.ok(doc.paths['/auth/link'].get.responses['200']);
  assert.is(doc.paths['/me/keys/{id}'].patch['x-gw-role'], 'admin');
});

test('every operation has an operationId, no two alike, OpenAI\'s names on OpenAI\'s routes', () => {
  const ids = operations().map(({ method, path, op }) => {
    assert.type(op.operationId, 'string', `${method} ${path}`);
    assert.match(op.operationId, /^[A-Za-z][A-Za-z0-9]*$/);
    return op.operationId;
  });
  assert.is(new Set(ids).size, ids.length, 'operationIds are unique');
  assert.is(doc.paths['/v1/chat/completions'].post.operationId, 'createChatCompletion');
  assert.is(doc.paths['/v1/models/{id}'].get.operationId, 'retrieveModel');
});

test('the chat answer is described: choices with a message, and usage; the stream names its chunk schema', () => {
  const ok = doc.paths['/v1/chat/completions'].post.responses['200'];
  const completion = resolve(ok.content['application/json'].schema);
  assert.is(completion.type, 'object');
  assert.ok(completion.required.includes('choices'));
  const choice = resolve(completion.properties.choices.items);
  assert.ok(choice.required.includes('message'));
  assert.equal(resolve(choice.properties.message).properties.content.type, ['string', 'null']);
  assert.ok(resolve(completion.properties.usage).properties.total_tokens);
  assert.ok(ok.content['text/event-stream']);
  assert.is(resolve(ok.content['text/event-stream']['x-gw-event']).properties.object.const, 'chat.completion.chunk');
  const embeddings = resolve(doc.paths['/v1/embeddings'].post.responses['200'].content['application/json'].schema);
  assert.ok(embeddings.properties.data.items.properties.embedding);
  assert.ok(doc.paths['/v1/audio/speech'].post.responses['200'].content['audio/mpeg']);
  assert.is(resolve(doc.paths['/v1/models/{id}'].get.responses['200'].content['application/json'].schema).properties.object.const, 'model');
});

test('inference requests document the gateway extensions', () => {
  for (const [path, type] of [['/v1/chat/completions', 'application/json'], ['/v1/embeddings', 'application/json'],
    ['/v1/audio/speech', 'application/json'], ['/v1/audio/transcriptions', 'multipart/form-data']]) {
    const schema = resolve(doc.paths[path].post.requestBody.content[type].schema);
    for (const ext of ['optimize', 'provider', 'data_policy', 'upstream_key']) assert.ok(schema.properties[ext], `${ext} on ${path}`);
  }
  assert.equal(resolve(doc.paths['/v1/chat/completions'].post.requestBody.content['application/json'].schema).properties.optimize.enum,
    ['price', 'latency', 'throughput']);
});

test('every error answer refers to the one Error component (Anthropic\'s on /v1/messages*), and every answer names x-request-id', () => {
  for (const { method, path, op } of operations()) {
    const name = path.startsWith('/v1/messages') ? 'AnthropicError' : 'Error';
    for (const [status, res] of Object.entries(op.responses) as [string, any][]) {
      assert.ok(res.headers?.['x-request-id'], `x-request-id on ${method} ${path} ${status}`);
      if (Number(status) >= 400) assert.equal(res.content, { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } }, `${method} ${path} ${status}`);
    }
  }
  assert.equal(doc.components.schemas.Error.properties.error.required, ['message', 'type', 'code']);
});

test('a client generated by openapi-typescript types the chat answer, its choices, the model object and the error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-openapi-ts-'));
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
  const cli = join(require.resolve('openapi-typescript/package.json'), '..', 'bin', 'cli.js');
  await run(process.execPath, [cli, join(dir, 'openapi.json'), '-o', join(dir, 'api.d.ts')]);
  // Compiles only if the generated types are what a client reads: `never` or a missing field fails.
  writeFileSync(join(dir, 'client.ts'), `
import type { paths, components } from './api';
type IsNever<T> = [T] extends [never] ? true : false;
type Json<P extends keyof paths, M extends keyof paths[P], S extends number> =
  paths[P][M] extends { responses: infer R } ? R extends Record<S, { content: { 'application/json': infer B } }> ? B : never : never;
type Chat = Json<'/v1/chat/completions', 'post', 200>;
export const chatIsTyped: IsNever<Chat> = false;
export const choicesAreTyped: IsNever<Chat['choices']> = false;
export function read(c: Chat): string | null | undefined { return c.choices[0].message.content; }
export function total(c: Chat): number | undefined { return c.usage?.total_tokens; }
type Model = Json<'/v1/models/{id}', 'get', 200>;
export function owner(m: Model): string { return m.id; }
export function code(e: components['schemas']['Error']): string { return e.error.code; }
`);
  const tsc = require.resolve('typescript/bin/tsc');
  await run(process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext',
    join(dir, 'client.ts')]).catch((e: { stdout?: string }) => assert.unreachable(`generated client does not compile:\n${e.stdout}`));
});

test.run();
