import type { AttributeValue } from './span.js';

/** What a /mcp request's span is named and says: its JSON-RPC method and, for a tool call, the tool. */
export interface McpSpan {
  name: string;
  attributes: Record<string, AttributeValue | null>;
}

/**
 * Reads the JSON-RPC message of a /mcp request, after it has been answered, as the OpenTelemetry
 * MCP conventions name its span: `tools/call chat`, `initialize`… with `mcp.method.name`, and for a
 * tool call `gen_ai.tool.name` and `gen_ai.operation.name` `execute_tool`. A message that cannot be
 * read leaves the span named `mcp` (the client was told what was wrong with it).
 */
export function mcpSpan(body: Buffer): McpSpan {
  const msg = parsed(body);
  const method = typeof msg?.method === 'string' ? msg.method.slice(0, 100) : null;
  if (method === null) return { name: 'mcp', attributes: {} };
  const tool = method === 'tools/call' && typeof msg?.params?.name === 'string' ? msg.params.name.slice(0, 100) : null;
  return {
    name: tool === null ? method : `${method} ${tool}`,
    attributes: { 'mcp.method.name': method, 'gen_ai.tool.name': tool, 'gen_ai.operation.name': tool === null ? null : 'execute_tool' },
  };
}

function parsed(body: Buffer): { method?: unknown; params?: { name?: unknown } } | null {
  try {
    return JSON.parse(body.toString('utf8')) as { method?: unknown; params?: { name?: unknown } } | null;
  } catch {
    return null;
  }
}
