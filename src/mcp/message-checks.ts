import {
  CallToolRequestSchema, ErrorCode, InitializeRequestSchema, isJSONRPCRequest, JSONRPCMessageSchema, ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema, ListToolsRequestSchema, PingRequestSchema, ReadResourceRequestSchema,
  type JSONRPCMessage, type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { MAX_JSON_DEPTH } from '../domain/json-body.js';
import { jsonNestsDeeperThan } from '../lib/json-depth.js';

interface SchemaCheck {
  safeParse(m: unknown): { success: true } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}
/**
 * The methods the server answers, by the SDK's schema of each. SDK 1.x answers a request whose
 * params fail its method's schema with -32603 Internal error and the zod issues as the message
 * (modelcontextprotocol/typescript-sdk#2284: open, a fix proposed for v2); JSON-RPC's code for
 * the client's mistake is -32602 Invalid params, so those are checked here first. Drop this when
 * the SDK does it.
 */
const PARAMS = new Map<string, SchemaCheck>([
  InitializeRequestSchema, PingRequestSchema, ListToolsRequestSchema, CallToolRequestSchema, ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema, ReadResourceRequestSchema,
].map((schema) => [schema.shape.method.value, schema]));

/** A message the SDK may have, or the JSON-RPC error answered instead (status, body). */
export type Checked = { message: JSONRPCMessage; refusal: null } | { message: null; refusal: { status: number; body: string } };

/**
 * What the gateway checks of a POST body before the MCP SDK sees it: that it is JSON, not nested
 * deeper than every JSON route allows (before any schema walks it), one message (the SDK still
 * takes batches, which MCP 2025-06-18 dropped), JSON-RPC 2.0 (-32600: the SDK's transport calls
 * a message that parsed but is not JSON-RPC a parse error, -32700), and params that fit the method.
 */
export function checkMessage(body: Buffer): Checked {
  let msg: unknown;
  try {
    msg = JSON.parse(body.toString('utf8'));
  } catch {
    return refuse(ErrorCode.ParseError, 'Parse error: the body is not JSON');
  }
  if (jsonNestsDeeperThan(msg, MAX_JSON_DEPTH)) {
    return refuse(ErrorCode.InvalidRequest, `Invalid request: nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
  if (Array.isArray(msg)) return refuse(ErrorCode.InvalidRequest, 'Batches are not supported: send one JSON-RPC message per request');
  if (!JSONRPCMessageSchema.safeParse(msg).success) {
    return refuse(ErrorCode.InvalidRequest, 'Invalid request: expected a JSON-RPC 2.0 message (an id is a string or a number)');
  }
  if (isJSONRPCRequest(msg)) {
    const checked = PARAMS.get(msg.method)?.safeParse(msg);
    if (checked?.success === false) {
      const issue = checked.error.issues[0];
      return refuse(ErrorCode.InvalidParams, `Invalid params for ${msg.method}: ${issue.path.map(String).join('.')}: ${issue.message}`, msg.id);
    }
  }
  // The transport parses it again with the same schema.
  return { message: msg as JSONRPCMessage, refusal: null };
}

/**
 * A JSON-RPC error in the shape the SDK's transport answers with: 400 for a message that is not
 * one (no id to answer), 200 for a request answered with an error, as the SDK answers those.
 */
function refuse(code: ErrorCode, message: string, id: RequestId | null = null): Checked {
  return { message: null, refusal: { status: id === null ? 400 : 200, body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }) } };
}
