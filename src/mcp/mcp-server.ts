import { isIP } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema,
  McpError, ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { ClientReply } from '../domain/client-reply.js';
import type { KeyRecord } from '../domain/key-record.js';
import { errors } from '../errors/catalog.js';
import { isGatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../lib/logger.js';
import { checkMessage } from './message-checks.js';
import { mcpTools, toolError, type ToolDeps, type ToolInputSchema, type ToolResult } from './mcp-tools.js';

const JSON_TYPE = 'application/json';
const CAPABILITIES = { tools: { listChanged: false }, resources: { listChanged: false, subscribe: false } };
const INSTRUCTIONS = 'Inference through the gw gateway on your key: list_models, chat, account; with a full-scope key also list_keys ' +
  'and create_ephemeral_key. Prices are in INR. Resources gw://models and gw://account hold the catalog and the account.';

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
const RESOURCE_LIST = RESOURCES.map(({ tool: _, ...r }) => ({ ...r, mimeType: JSON_TYPE }));
/** MCP's code for a resource that does not exist (the spec's, not in the SDK's ErrorCode). */
const RESOURCE_NOT_FOUND = -32002;
/*
 * The SDK's transport reads a web Request; the gateway has already read the body and checked the
 * key, so the Request carries only what the transport checks: that the client takes JSON and SSE
 * answers and sends JSON. The gateway has never required those headers of /mcp clients (raw
 * JSON-RPC posts without them are served), so they are stated here, not read from the client.
 * The URL is the transport's requestInfo only; no handler reads it.
 */
const TRANSPORT_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': JSON_TYPE };
const TRANSPORT_URL = 'http://gw.invalid/mcp';
/** A Server uses it only for elicitation, which this one never asks for: one for all, not an Ajv per request. */
const VALIDATOR = new AjvJsonSchemaValidator();

export interface McpDeps extends ToolDeps {
  log: Logger;
  version: string;
}

/**
 * The gateway's MCP server (spec 5: bearer authentication): the MCP SDK's protocol layer (Server:
 * initialize and version negotiation, ping, method dispatch, JSON-RPC errors) on its web-standard
 * streamable HTTP transport in stateless form (no session id) with JSON answers (no SSE): each POST
 * gets one JSON answer, 202 with no body for a notification. Each request gets its own Server and
 * transport, as the SDK's stateless mode requires (a Server holds one transport at a time).
 *
 * A missing or bad key is a 401 in the gateway's envelope before any JSON-RPC is read; what goes
 * wrong inside a message is a JSON-RPC error; a tool's own refusal is its result with `isError`,
 * carrying the envelope the HTTP API would have sent. Tools keep their JSON Schemas and refuse in
 * that envelope, which is why this uses the SDK's Server and not its zod-based McpServer.
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
  get toolList(): { name: string; description: string; inputSchema: ToolInputSchema }[] {
    return this.#tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  }

  /**
   * One POST to /mcp with the key the router authenticated. `protocolVersion` is the client's
   * MCP-Protocol-Version header ('' when absent): the transport refuses one it does not support.
   */
  async handle(key: KeyRecord, body: Buffer, reply: ClientReply, protocolVersion = ''): Promise<void> {
    const { message, refusal } = checkMessage(body);
    if (refusal !== null) {
      reply.send(refusal.status, JSON_TYPE, refusal.body);
      return;
    }
    const server = this.#serverFor(key, reply.requestId);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const res = await transport.handleRequest(new Request(TRANSPORT_URL, { method: 'POST', headers: protocolVersion ? { ...TRANSPORT_HEADERS, 'mcp-protocol-version': protocolVersion } : TRANSPORT_HEADERS }), { parsedBody: message });
      reply.send(res.status, res.headers.get('content-type') ?? JSON_TYPE, await res.text());
    } finally {
      await server.close();
    }
  }

  /** A protocol Server for one request, its handlers bound to the caller's key and the request's id. */
  #serverFor(key: KeyRecord, requestId: string): Server {
    const server = new Server(
      { name: 'gw', title: 'gw inference gateway', version: this.#d.version },
      { capabilities: CAPABILITIES, instructions: INSTRUCTIONS, jsonSchemaValidator: VALIDATOR },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.toolList }));
    server.setRequestHandler(CallToolRequestSchema, (r) => this.#call(r.params.name, r.params.arguments ?? {}, key, requestId));
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: RESOURCE_LIST }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
    server.setRequestHandler(ReadResourceRequestSchema, async (r) => {
      const uri = r.params.uri;
      const resource = RESOURCES.find((x) => x.uri === uri);
      if (resource === undefined) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.slice(0, 200)}`, { uri });
      const out = await this.#call(resource.tool, {}, key, requestId);
      return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(out.structuredContent) }] };
    });
    return server;
  }

  async #call(name: string, args: Record<string, unknown>, key: KeyRecord, requestId: string): Promise<ToolResult> {
    // An unknown tool is a tool error, not the JSON-RPC error the spec allows: clients show the
    // model a tool error, and the envelope names the mistake the same way the HTTP API does.
    const tool = this.#byName.get(name);
    if (tool === undefined) return toolError(errors.badRequest(`No tool '${name}'; tools/list names them`));
    if (tool.management && key.scope !== 'full') {
      return toolError(errors.forbidden(`'${tool.name}' needs a full-scope key; an ephemeral key is for inference only`));
    }
    try {
      return await tool.run(args, key, requestId);
    } catch (e) {
      if (isGatewayError(e)) return toolError(e);
      // The SDK would answer the error's own message; like every route, say nothing of a bug but log it.
      this.#d.log.error('unhandled error', { path: '/mcp', tool: name, err: String((e as Error)?.stack ?? e) });
      throw new McpError(ErrorCode.InternalError, 'Internal error');
    }
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
    resources: RESOURCE_LIST,
  };
}
