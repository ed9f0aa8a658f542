import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { errors } from '../../src/errors/catalog.js';
import { anthropicErrorBody, anthropicErrorEvent, anthropicErrorType } from '../../src/formats/messages/error.js';
import { fixture } from './messages-fixture.js';

test("each of the spec's statuses and codes maps to the Anthropic error type of the golden table", () => {
  for (const c of fixture('errors').cases) {
    assert.is(anthropicErrorType(new GatewayError(c.status, 'x', c.code, 'm')), c.type, `${c.status} ${c.code}`);
  }
});

test("the body is Anthropic's shape with the spec's code at the end of the message and in details.error_code", () => {
  const body = JSON.parse(anthropicErrorBody(errors.rateLimitExceeded(3, '60 requests a minute'), 'req-9'));
  assert.equal(body, {
    type: 'error',
    error: { type: 'rate_limit_error', message: 'Rate limit exceeded: 60 requests a minute (rate_limit_exceeded)', details: { error_code: 'rate_limit_exceeded' } },
    request_id: 'req-9',
  });
});

test('a stream error is one event: error SSE event carrying the same body', () => {
  const e = errors.allRoutesFailed('boom');
  assert.is(anthropicErrorEvent(e, null), `event: error\ndata: ${anthropicErrorBody(e, null)}\n\n`);
});

test.run();
