// Anthropic's error bodies through the gateway's upstream error classification: 529
// overloaded_error and 429 rate_limit_error fail over to the next route; 400
// invalid_request_error is the caller's own and comes back with Anthropic's words.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RouteFailure } from '../../src/dataplane/route-failure.js';
import { classifyUpstreamError } from '../../src/dataplane/upstream-error.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { fixtureBytes } from './anthropic-fixtures.js';

test('529 overloaded_error is a route failure: the next route is tried', () => {
  const e = classifyUpstreamError(529, fixtureBytes('error-529.json'), false, 'sk-ant-test');
  assert.ok(e instanceof RouteFailure);
  assert.equal([e.code, e.status, e.message], ['upstream_error', 529, 'upstream 529: Overloaded']);
});

test('429 rate_limit_error is a route failure marked rate limited', () => {
  const e = classifyUpstreamError(429, fixtureBytes('error-429.json'), false, 'sk-ant-test');
  assert.ok(e instanceof RouteFailure);
  assert.is(e.code, 'upstream_rate_limited');
  assert.match(e.message, '50,000 input tokens per minute');
});

test('400 invalid_request_error goes back to the caller with its type and Anthropic\'s message, without failover', () => {
  const e = classifyUpstreamError(400, fixtureBytes('error-400.json'), false, 'sk-ant-test');
  assert.ok(isGatewayError(e));
  assert.is((e as any).status, 400);
  assert.is((e as any).type, 'invalid_request_error');
  assert.match((e as Error).message, "media_type: Input should be 'image/jpeg'");
});

test.run();
