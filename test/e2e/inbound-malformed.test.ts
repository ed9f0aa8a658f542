// Malformed bodies on the two inbound formats' routes: each is refused with a 4xx in the
// route's own error shape (the spec's envelope on /v1/responses, Anthropic's on /v1/messages*),
// never a 5xx and never a 200 for a body that is not a JSON object.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';

let gw: GatewayProcess;
let key: string;

test.before(async () => {
  gw = await startGateway({});
  ({ key } = await gw.orgAndKey());
});
test.after(() => gw.cleanup());

const M = 'sandbox/echo';
const bodies: Record<string, unknown[]> = {
  responses: [
    5, null, [], 'x', {}, { model: M }, { model: M, input: 5 }, { model: M, input: [] }, { model: M, input: [5] }, { model: M, input: [null] },
    { model: M, input: [{}] }, { model: M, input: [{ type: 'message' }] }, { model: M, input: [{ type: 'message', role: 'user' }] },
    { model: M, input: [{ type: 'message', role: 'user', content: 5 }] }, { model: M, input: [{ role: 'user', content: [{}] }] },
    { model: M, input: [{ role: 'user', content: [{ type: 'input_text' }] }] }, { model: M, input: [{ role: 'user', content: [{ type: 'input_text', text: 5 }] }] },
    { model: M, input: [{ role: 'bogus', content: 'x' }] }, { model: M, input: [{ type: 'function_call' }] }, { model: M, input: [{ type: 'function_call_output' }] },
    { model: M, input: [{ type: 'function_call_output', call_id: 5, output: {} }] }, { model: M, input: 'x', tools: 5 }, { model: M, input: 'x', tools: [5] },
    { model: M, input: 'x', tools: [{ type: 'function' }] }, { model: M, input: 'x', tool_choice: 5 }, { model: M, input: 'x', tool_choice: { type: 'function' } },
    { model: M, input: 'x', text: 5 }, { model: M, input: 'x', text: { format: 5 } }, { model: M, input: 'x', text: { format: { type: 'json_schema' } } },
    { model: M, input: 'x', previous_response_id: 5 }, { model: M, input: 'x', previous_response_id: 'resp_nope' }, { model: M, input: 'x', max_output_tokens: -1 },
    { model: M, input: 'x', instructions: 5 }, { model: M, input: 'x', metadata: 5 }, { model: M, input: 'x', reasoning: 5 }, { model: M, input: 'x', stream: 'yes' },
    { model: M, input: 'x', store: 'no' }, { model: M, input: 'x', temperature: 'hot' }, { model: 5, input: 'x' }, { model: M, input: [{ type: 'reasoning' }] },
    { model: M, input: [{ role: 'user', content: [{ type: 'input_image' }] }] }, { model: M, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 5 }] }] },
    { model: M, input: 'x', tools: [{ type: 'function', name: 'f', parameters: 5 }] }, { model: M, input: 'x', include: 5 }, { model: M, input: 'x', parallel_tool_calls: 5 },
  ],
  messages: [
    5, null, [], {}, { model: M }, { model: M, max_tokens: 5 }, { model: M, max_tokens: 5, messages: 5 }, { model: M, max_tokens: 5, messages: [] },
    { model: M, max_tokens: 5, messages: [5] }, { model: M, max_tokens: 5, messages: [{}] }, { model: M, max_tokens: 5, messages: [{ role: 'user' }] },
    { model: M, max_tokens: 5, messages: [{ role: 'user', content: 5 }] }, { model: M, max_tokens: 5, messages: [{ role: 'user', content: [5] }] },
    { model: M, max_tokens: 5, messages: [{ role: 'user', content: [{}] }] }, { model: M, max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'text' }] }] },
    { model: M, max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] }, { model: M, max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'image' }] }] },
    { model: M, max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'image', source: 5 }] }] }, { model: M, max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64' } }] }] },
    { model: M, max_tokens: 5, messages: [{ role: 'assistant', content: [{ type: 'tool_use' }] }] }, { model: M, max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'tool_result' }] }] },
    { model: M, max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 5 }] }] },
    { model: M, max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: [5] }] }] },
    { model: M, max_tokens: 5, messages: [{ role: 'bogus', content: 'x' }] }, { model: M, max_tokens: 5, system: 5, messages: [{ role: 'user', content: 'x' }] },
    { model: M, max_tokens: 5, system: [5], messages: [{ role: 'user', content: 'x' }] }, { model: M, max_tokens: 5, tools: 5, messages: [{ role: 'user', content: 'x' }] },
    { model: M, max_tokens: 5, tools: [5], messages: [{ role: 'user', content: 'x' }] }, { model: M, max_tokens: 5, tools: [{}], messages: [{ role: 'user', content: 'x' }] },
    { model: M, max_tokens: 5, tool_choice: 5, messages: [{ role: 'user', content: 'x' }] }, { model: M, max_tokens: 5, tool_choice: { type: 'tool' }, messages: [{ role: 'user', content: 'x' }] },
    { model: M, max_tokens: 5, stop_sequences: 5, messages: [{ role: 'user', content: 'x' }] }, { model: M, max_tokens: 5, metadata: 5, messages: [{ role: 'user', content: 'x' }] },
    { model: M, max_tokens: -5, messages: [{ role: 'user', content: 'x' }] }, { model: M, max_tokens: 5, temperature: 'x', messages: [{ role: 'user', content: 'x' }] },
    { model: M, max_tokens: 5, stream: 5, messages: [{ role: 'user', content: 'x' }] }, { model: M, max_tokens: 5, thinking: 5, messages: [{ role: 'user', content: 'x' }] },
  ],
};

async function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(gw.url + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

const isObject = (b: unknown): boolean => typeof b === 'object' && b !== null && !Array.isArray(b);

test('malformed Responses bodies get a 4xx in the spec\'s envelope', async () => {
  for (const b of bodies.responses) {
    const { status, json } = await post('/v1/responses', b);
    const what = `${JSON.stringify(b)} → ${status} ${JSON.stringify(json).slice(0, 200)}`;
    assert.ok(status < 500, what);
    if (!isObject(b)) assert.is(status, 400, what);
    if (status >= 400) assert.ok(typeof json.error?.message === 'string' && typeof json.error?.code === 'string', what);
  }
});

for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
  test(`malformed Messages bodies on ${path} get a 4xx in Anthropic's shape`, async () => {
    for (const b of bodies.messages) {
      const { status, json } = await post(path, b);
      const what = `${JSON.stringify(b)} → ${status} ${JSON.stringify(json).slice(0, 200)}`;
      assert.ok(status < 500, what);
      if (!isObject(b)) assert.is(status, 400, what);
      if (status >= 400) assert.ok(json.type === 'error' && typeof json.error?.type === 'string' && typeof json.error?.message === 'string', what);
    }
  });
}

test('odd ids and paging on the stored-response routes get a 4xx, never a 5xx', async () => {
  for (const p of ['/v1/responses/resp_x', '/v1/responses/resp_x/input_items', '/v1/responses/%ZZ', '/v1/responses/resp_x/input_items?limit=abc&order=zz&after=5']) {
    const res = await fetch(gw.url + p, { headers: { authorization: `Bearer ${key}` } });
    assert.ok(res.status >= 400 && res.status < 500, `${p} → ${res.status}`);
  }
});

test.run();
