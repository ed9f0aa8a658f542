import type { Config } from '../config/schema.js';
import type { ModelListBody } from '../control/model-list.js';
import type { InferenceService } from '../dataplane/inference-service.js';
import type { KeyRecord } from '../domain/key-record.js';
import { errors } from '../errors/catalog.js';
import { GatewayError } from '../errors/gateway-error.js';
import { EPHEMERAL_MAX_DAILY, EPHEMERAL_MAX_HOURS } from '../control/keys/key-rules.js';
import type { KeyService } from '../control/keys/key-service.js';
import { MemoryReply } from './memory-reply.js';
import { iso } from '../lib/iso-time.js';
import { microsToInr } from '../lib/money.js';

export interface ToolDeps {
  /** The inference service, or with traces on its traced wrapper (src/telemetry/traced-inference.ts). */
  inference: Pick<InferenceService, 'handle'>;
  listModels: () => ModelListBody;
  keys: KeyService;
  config: Readonly<Config>;
}

/** What a tool answers: text for the model, the same as structured data, and whether it is an error. */
export type ToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

interface Tool {
  name: string;
  description: string;
  inputSchema: ToolInputSchema;
  /** Management tools need a full-scope key: one minted by a person, not an ephemeral one. */
  management: boolean;
  /** `via`: the id of the /mcp request that called the tool. */
  run(args: Record<string, unknown>, key: KeyRecord, via: string): Promise<ToolResult> | ToolResult;
}

const ok = (data: Record<string, unknown>, text = JSON.stringify(data)): ToolResult => ({ content: [{ type: 'text', text }], structuredContent: data });

/** A tool's refusal, in the error envelope the HTTP API uses, as MCP's tool error (isError). */
export function toolError(e: GatewayError): ToolResult {
  const error = { message: e.message, type: e.type, code: e.code };
  return { content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error }, isError: true };
}

/** A tool's arguments are an object, as MCP's tools/list requires. */
export type ToolInputSchema = { type: 'object'; [k: string]: unknown };

const object = (properties: Record<string, unknown>, required: string[] = []): ToolInputSchema =>
  ({ type: 'object', properties, required, additionalProperties: false });

/** The gateway's MCP tools: inference for every key, and account tools for full-scope keys. */
export function mcpTools(d: ToolDeps): Tool[] {
  return [
    {
      name: 'list_models', management: false,
      description: 'The model catalog: id, kind, INR pricing, residency, languages, and whether a provider serving it is configured.',
      inputSchema: object({ kind: { type: 'string', enum: ['chat', 'embedding', 'transcription', 'speech'] } }),
      run: (args) => {
        const models = d.listModels().data.filter((m) => args.kind === undefined || m.kind === args.kind).map((m) => ({
          id: m.id, name: m.name, kind: m.kind, pricing: m.pricing, residency: m.residency, languages: m.languages, available: m.available,
        }));
        return ok({ models });
      },
    },
    {
      name: 'chat', management: false,
      description: 'A chat completion through the gateway (routing, failover, limits and billing as on /v1/chat/completions). ' +
        'Returns the reply text, and the model, provider and token usage.',
      inputSchema: object({
        model: { type: 'string', description: 'catalog id, or provider/model-id on a saved key' },
        messages: { type: 'array', minItems: 1, items: { type: 'object', properties: { role: { type: 'string' }, content: {} }, required: ['role'] } },
        max_tokens: { type: 'integer', minimum: 1 },
        temperature: { type: 'number' },
        optimize: { type: 'string', enum: ['price', 'latency', 'throughput'] },
        provider: { type: 'string' },
        data_policy: { type: 'string', enum: ['india_only', 'no_training', 'zero_retention'] },
      }, ['model', 'messages']),
      run: async (args, key, via) => {
        const reply = new MemoryReply(via);
        const body = Buffer.from(JSON.stringify({ ...args, stream: false }));
        try {
          await d.inference.handle('chat', { key, body }, reply);
        } catch (e) {
          if (e instanceof GatewayError) return toolError(e);
          throw e;
        }
        const doc = JSON.parse(reply.body) as { model?: string; choices?: { message?: { content?: unknown } }[]; usage?: unknown };
        const content = doc.choices?.[0]?.message?.content;
        const text = typeof content === 'string' ? content : JSON.stringify(content ?? null);
        return ok({ content: text, model: doc.model ?? null, provider: reply.headers['x-gw-provider'] ?? null, usage: doc.usage ?? null,
          request_id: reply.headers['x-gw-request-id'] ?? null }, text);
      },
    },
    {
      name: 'account', management: false,
      description: 'This key\'s account: its tier, scope and limits, requests today and spend this month (IST), and the org balance in INR.',
      inputSchema: object({}),
      run: async (_args, key) => {
        const a = await d.keys.account(key);
        return ok({
          org_id: key.orgId, balance_inr: microsToInr(a.balanceMicros),
          key: {
            id: key.id, prefix: key.prefix, tier: key.tier, scope: key.scope, daily_limit: key.dailyLimit, rpm_limit: key.rpmLimit,
            expires_at: iso(key.expiresAt),
            requests_today: a.requestsToday, spent_month_inr: microsToInr(a.spentMonthMicros),
          },
        });
      },
    },
    {
      name: 'list_keys', management: true,
      description: 'The org\'s active keys (no secrets): prefix, name, tier, scope and expiry. Needs a full-scope key.',
      inputSchema: object({}),
      run: async (_args, key) => ok({
        keys: (await d.keys.listActive(key.orgId)).map((k) => ({
          id: k.id, name: k.name, prefix: k.prefix, tier: k.tier, scope: k.scope,
          expires_at: iso(k.expiresAt),
        })),
      }),
    },
    {
      name: 'create_ephemeral_key', management: true,
      description: `Mint a short-lived key for an agent: inference only, ${1}-${EPHEMERAL_MAX_HOURS} hours, at most ` +
        `${EPHEMERAL_MAX_DAILY} requests a day. The key is in this answer only. Needs a full-scope key.`,
      inputSchema: object({
        hours: { type: 'integer', minimum: 1, maximum: EPHEMERAL_MAX_HOURS },
        daily_limit: { type: 'integer', minimum: 1, maximum: EPHEMERAL_MAX_DAILY, description: `default ${EPHEMERAL_MAX_DAILY}` },
        name: { type: 'string', minLength: 1, maxLength: 64 },
      }, ['hours']),
      run: async (args, key) => {
        const hours = args.hours;
        const daily = args.daily_limit ?? EPHEMERAL_MAX_DAILY;
        if (!Number.isInteger(hours) || (hours as number) < 1 || (hours as number) > EPHEMERAL_MAX_HOURS) {
          return toolError(errors.badRequest(`Invalid 'hours': an integer from 1 to ${EPHEMERAL_MAX_HOURS}`));
        }
        if (!Number.isInteger(daily) || (daily as number) < 1 || (daily as number) > EPHEMERAL_MAX_DAILY) {
          return toolError(errors.badRequest(`Invalid 'daily_limit': an integer from 1 to ${EPHEMERAL_MAX_DAILY}`));
        }
        const created = await d.keys.mintEphemeral(key, {
          hours: hours as number, dailyLimit: daily as number, name: typeof args.name === 'string' ? args.name : undefined,
        });
        return ok({
          id: created.id, key: created.key, prefix: created.prefix, name: created.name, scope: 'inference', daily_limit: daily,
          expires_at: iso(created.expiresAt),
        });
      },
    },
  ];
}
