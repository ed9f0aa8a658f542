import { isIP } from 'node:net';
import type { ClientReply } from '../domain/client-reply.js';
import type { KeyRecord } from '../domain/key-record.js';
import { errors } from '../errors/catalog.js';
import { isGatewayError } from '../errors/gateway-error.js';
import { MAX_JSON_DEPTH } from '../domain/json-body.js';
import { jsonNestsDeeperThan } from '../lib/json-depth.js';
import { mcpTools, toolError, type ToolDeps, type ToolResult } from './mcp-tools.js';

/** Protocol revisions this server speaks, newest first; a client asking for another gets the newest. */
const VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05'];
const JSON_TYPE = 'application/json';
const CAPABILITIES = { tools: { listChanged: false }, resources: { listChanged: false, subscribe: false } };

/**
 * Resources a client can attach as context: read-only views of the read-only tools, so both
 * answer from one place. Read with the caller's key, like the tools.
 */
const RESOURCES = [
  { uri: 'gw://models', name: 'models', title: 'Model catalog', tool: 'list_models',
    description: 'Every catalog model: id, kind, INR prices, residency, languages, context length, and whether it is usable now' },
  { uri: 'gw://account', name: 'account', title: 'This key\'s account', tool: 'account',
    description: 'The key\'s tier, scope and limits, its requests today and spend this month (IST), and the org balance in INR' },
] as const;
/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

export interface McpDeps extends ToolDeps {
  authenticate(authorization: string): KeyRecord;
  version: string;
}

type Id = string | number | null;
interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * The gateway's MCP server (spec 5: bearer authentication), on the streamable HTTP transport in
 * its stateless form: each POST carries one JSON-RPC message and gets one JSON answer (202 with no
 * body for a notification); there is no server-initiated stream, so GET and DELETE answer 405. A
 * missing or bad key is a 401 in the gateway's envelope before any JSON-RPC is read; what goes
 * wrong inside a message is a JSON-RPC error, and a tool's own refusal is its result with
 * `isError`, carrying the envelope the HTTP API would have sent.
 */
export class McpServer {
  readonly #d: McpDeps;
  readonly #tools: ReturnType<typeof mcpTools>;
  readonly #byName: Map<string, ReturnType<typeof mcpTools>[number]>;

  constructor(d: McpDeps) {
    this.#d = d;
    this.#tools = mcpTools(d);
    this.#byName = new Map(this.#tools.map((t) => [t.name, t]));
  }

  /** The tools as the server card and tools/list describe them. */
  get toolList(): { name: string; description: string; inputSchema: Record<string, unknown> }[] {
    return this.#tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  }

  async handle(authorization: string, body: Buffer, reply: ClientReply): Promise<void> {
    let key: KeyRecord;
    try {
      key = this.#d.authenticate(authorization);
    } catch (e) {
      if (isGatewayError(e)) {
        reply.sendError(isGatewayError(e) && e.status === 401
          ? errors.invalidApiKey('The MCP server needs a gw- key as Authorization: Bearer')
          : e);
        return;
      }
      throw e;
    }
    let msg: unknown;
    try {
      msg = JSON.parse(body.toString('utf8'));
    } catch {
      this.#answer(reply, 400, null, undefined, { code: -32700, message: 'Parse error: the body is not JSON' });
      return;
    }
    if (jsonNestsDeeperThan(msg, MAX_JSON_DEPTH)) {
      this.#answer(reply, 400, null, undefined, { code: -32600, message: `Invalid request: nested more than ${MAX_JSON_DEPTH} levels deep` });
      return;
    }
    if (Array.isArray(msg)) {
      this.#answer(reply, 400, null, undefined, { code: -32600, message: 'Batches are not supported: send one JSON-RPC message per request' });
      return;
    }
    const m = msg as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    if (m === null || typeof m !== 'object' || m.jsonrpc !== '2.0') {
      this.#answer(reply, 400, null, undefined, { code: -32600, message: 'Invalid request: expected a JSON-RPC 2.0 message' });
      return;
    }
    const isRequest = 'id' in m && m.id !== undefined;
    if (typeof m.method !== 'string') {
      // A response or error from the client: this server sends no requests, so there is nothing to match.
      reply.send(202, JSON_TYPE, '');
      return;
    }
    if (!isRequest) {
      // Notifications (initialized, cancelled…) need no answer.
      reply.send(202, JSON_TYPE, '');
      return;
    }
    const id = m.id as Id;
    if (id !== null && typeof id !== 'string' && typeof id !== 'number') {
      this.#answer(reply, 400, null, undefined, { code: -32600, message: 'Invalid request: id must be a string or a number' });
      return;
    }
    const params = (m.params ?? {}) as Record<string, unknown>;
    switch (m.method) {
      case 'initialize': {
        const asked = typeof params.protocolVersion === 'string' ? params.protocolVersion : VERSIONS[0];
        this.#answer(reply, 200, id, {
          protocolVersion: VERSIONS.includes(asked) ? asked : VERSIONS[0],
          capabilities: CAPABILITIES,
          serverInfo: { name: 'gw', title: 'gw inference gateway', version: this.#d.version },
          instructions: 'Inference through the gw gateway on your key: list_models, chat, account; with a full-scope key also list_keys ' +
            'and create_ephemeral_key. Prices are in INR. Resources gw://models and gw://account hold the catalog and the account.',
        });
        return;
      }
      case 'ping':
        this.#answer(reply, 200, id, {});
        return;
      case 'tools/list':
        this.#answer(reply, 200, id, { tools: this.toolList });
        return;
      case 'tools/call':
        this.#answer(reply, 200, id, await this.#call(params, key, authorization));
        return;
      case 'resources/list':
        this.#answer(reply, 200, id, { resources: RESOURCES.map(({ tool: _, ...r }) => ({ ...r, mimeType: JSON_TYPE })) });
        return;
      case 'resources/templates/list':
        this.#answer(reply, 200, id, { resourceTemplates: [] });
        return;
      case 'resources/read': {
        const r = RESOURCES.find((x) => x.uri === params.uri);
        if (r === undefined) {
          this.#answer(reply, 200, id, undefined, { code: RESOURCE_NOT_FOUND, message: `Resource not found: ${String(params.uri).slice(0, 200)}`, data: { uri: params.uri } });
          return;
        }
        const out = await this.#call({ name: r.tool, arguments: {} }, key, authorization);
        this.#answer(reply, 200, id, { contents: [{ uri: r.uri, mimeType: JSON_TYPE, text: JSON.stringify(out.structuredContent) }] });
        return;
      }
      default:
        this.#answer(reply, 200, id, undefined, { code: -32601, message: `Method not found: ${m.method.slice(0, 80)}` });
    }
  }

  async #call(params: Record<string, unknown>, key: KeyRecord, authorization: string): Promise<ToolResult> {
    const tool = typeof params.name === 'string' ? this.#byName.get(params.name) : undefined;
    if (tool === undefined) return toolError(errors.badRequest(`No tool '${String(params.name)}'; tools/list names them`));
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return toolError(errors.badRequest('arguments must be an object'));
    if (tool.management && key.scope !== 'full') {
      return toolError(errors.forbidden(`'${tool.name}' needs a full-scope key; an ephemeral key is for inference only`));
    }
    try {
      return await tool.run(args as Record<string, unknown>, key, authorization);
    } catch (e) {
      if (isGatewayError(e)) return toolError(e);
      throw e;
    }
  }

  #answer(reply: ClientReply, status: number, id: Id, result: unknown, error?: RpcError): void {
    const body = error === undefined ? { jsonrpc: '2.0', id, result } : { jsonrpc: '2.0', id, error };
    reply.send(status, JSON_TYPE, JSON.stringify(body));
  }
}

/**
 * The MCP Server Card (/.well-known/mcp/server-card.json, the MCP server-card proposal): who the
 * server is, where its streamable HTTP endpoint is, that it needs a bearer key, and its tools.
 */
export function serverCard(baseUrl: string, version: string, tools: McpServer['toolList']): Record<string, unknown> {
  const host = (() => {
    try {
      return new URL(baseUrl).hostname;
    } catch {
      return 'localhost';
    }
  })();
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    // Reverse-DNS, as the card's schema has it; an address or a bare host name has no domain to reverse.
    name: isIP(host) === 0 && host.includes('.') ? `${host.split('.').reverse().join('.')}/gw` : 'local.gw/gw',
    title: 'gw inference gateway',
    description: 'OpenAI-compatible inference in INR with failover across providers: list models, chat, check the account, mint ephemeral keys.',
    version,
    remotes: [{
      type: 'streamable-http',
      url: `${baseUrl}/mcp`,
      headers: [{ name: 'Authorization', description: 'Bearer gw- API key', isRequired: true, isSecret: true }],
    }],
    authentication: { required: true, schemes: ['bearer'] },
    capabilities: CAPABILITIES,
    tools,
    resources: RESOURCES.map(({ tool: _, ...r }) => ({ ...r, mimeType: JSON_TYPE })),
  };
}
