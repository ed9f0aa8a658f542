import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';

let gw: GatewayProcess;
let doc: any;

test.before(async () => {
  gw = await startGateway();
  doc = await (await fetch(`${gw.url}/openapi.json`)).json();
});
test.after(async () => {
  await gw.cleanup();
});

test('GET /openapi.json is an OpenAPI 3.1 document with both security schemes', () => {
  assert.is(doc.openapi, '3.1.0');
  assert.ok(doc.info.title && doc.info.version);
  assert.equal(Object.keys(doc.components.securitySchemes).sort(), ['bearerAuth', 'sessionCookie']);
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
  const chat = doc.paths['/v1/chat/completions'].post.requestBody.content['application/json'].schema;
  assert.ok(chat.required.includes('model') && chat.required.includes('messages'));
  assert.not.ok(JSON.stringify(doc).includes('[Kind]'));
  assert.ok(doc.paths['/auth/link'].get.responses['302']);
  assert.not.ok(doc.paths['/auth/link'].get.responses['200']);
  assert.is(doc.paths['/me/keys/{id}'].patch['x-gw-role'], 'admin');
});

test.run();
