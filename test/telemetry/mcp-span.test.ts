import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mcpSpan } from '../../src/telemetry/mcp-span.js';

const of = (v: unknown) => mcpSpan(Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)));

test('a tool call is named for its method and tool, as an execute_tool operation; another method for itself alone', () => {
  assert.equal(of({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chat', arguments: {} } }), {
    name: 'tools/call chat', attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'chat', 'gen_ai.operation.name': 'execute_tool' },
  });
  assert.equal(of({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { name: 'not a tool' } }), {
    name: 'initialize', attributes: { 'mcp.method.name': 'initialize', 'gen_ai.tool.name': null, 'gen_ai.operation.name': null },
  });
  assert.is(of({ method: 'tools/call', params: { name: 7 } }).name, 'tools/call');
});

test('a message that cannot be read leaves the span named mcp; a client\'s long names are cut', () => {
  for (const bad of ['{not json', 'null', '[]', '"tools/call"', { method: 42 }, {}]) assert.equal(of(bad), { name: 'mcp', attributes: {} }, String(bad));
  assert.is(of({ method: 'tools/call', params: { name: 'x'.repeat(500) } }).name.length, 'tools/call '.length + 100);
});

test.run();
