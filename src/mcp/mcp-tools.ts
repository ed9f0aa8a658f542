import type { Config } from '../config/schema.js';
import type { ModelListBody } from '../control/model-list.js';
import type { InferenceService } from '../dataplane/inference-service.js';
import type { KeyRecord } from '../domain/key-record.js';
import { errors } from '../errors/catalog.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Clock } from '../lib/clock.js';
import { istDay, istMonth } from '../lib/ist.js';
import { microsToInr } from '../lib/money.js';
import type { Db } from '../store/database.js';
import { countActiveKeys, insertKey, keyAccount, listActiveKeys } from '../store/keys.js';
import { MemoryReply } from './memory-reply.js';

/** Spec 8: ephemeral keys live 1 to 168 hours and take at most 1,000 requests a day. */
const EPHEMERAL_MAX_HOURS = 168;
const EPHEMERAL_MAX_DAILY = 1_000;
/** Ephemeral keys an org may hold at once (they do not count toward its keys from the dashboard). */
const EPHEMERAL_MAX_ACTIVE = 50;

export interface ToolDeps {
  inference: InferenceService;
  listModels: () => ModelListBody;
  db: Db;
  clock: Clock;
  config: Readonly<Config>;
}

/** What a tool answers: text for the model, the same as structured data, and whether it is an error. */
export interface ToolResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Management tools need a full-scope key: one minted by a person, not an ephemeral one. */
  management: boolean;
  run(args: Record<string, unknown>, key: KeyRecord, authorization: string): Promise<ToolResult> | ToolResult;
}

const ok = (data: Record<string, unknown>, text = JSON.stringify(data)): ToolResult => ({ content: [{ type: 'text', text }], structuredContent: data });

/** A tool's refusal, in the error envelope the HTTP API uses, as MCP's tool error (isError). */
export function toolError(e: GatewayError): ToolResult {
  const error = { message: e.message, type: e.type, code: e.code };
  return { content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error }, isError: true };
}

const object = (properties: Record<string, unknown>, required: string[] = []) =>
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
      run: async (args, _key, authorization) => {
        const reply = new MemoryReply();
        const body = Buffer.from(JSON.stringify({ ...args, stream: false }));
        try {
          await d.inference.handle('chat', { authorization, body }, reply);
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
      run: (_args, key) => {
        const now = d.clock.now();
        const a = keyAccount(d.db, key.orgId, key.id, istDay(now), istMonth(now));
        return ok({
          org_id: key.orgId, balance_inr: microsToInr(a.balance_micros),
          key: {
            id: key.id, prefix: key.prefix, tier: key.tier, scope: key.scope, daily_limit: key.dailyLimit, rpm_limit: key.rpmLimit,
            expires_at: key.expiresAt === null ? null : new Date(key.expiresAt).toISOString(),
            requests_today: a.requests_today, spent_month_inr: microsToInr(a.spent_month_micros),
          },
        });
      },
    },
    {
      name: 'list_keys', management: true,
      description: 'The org\'s active keys (no secrets): prefix, name, tier, scope and expiry. Needs a full-scope key.',
      inputSchema: object({}),
      run: (_args, key) => ok({
        keys: listActiveKeys(d.db, key.orgId, d.clock.now()).map((k) => ({
          id: k.id, name: k.name, prefix: k.prefix, tier: k.tier, scope: k.scope,
          expires_at: k.expires_at === null ? null : new Date(k.expires_at).toISOString(),
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
      run: (args, key) => {
        const hours = args.hours;
        const daily = args.daily_limit ?? EPHEMERAL_MAX_DAILY;
        if (!Number.isInteger(hours) || (hours as number) < 1 || (hours as number) > EPHEMERAL_MAX_HOURS) {
          return toolError(errors.badRequest(`Invalid 'hours': an integer from 1 to ${EPHEMERAL_MAX_HOURS}`));
        }
        if (!Number.isInteger(daily) || (daily as number) < 1 || (daily as number) > EPHEMERAL_MAX_DAILY) {
          return toolError(errors.badRequest(`Invalid 'daily_limit': an integer from 1 to ${EPHEMERAL_MAX_DAILY}`));
        }
        const now = d.clock.now();
        const name = typeof args.name === 'string' && args.name.trim() !== '' ? args.name.trim().slice(0, 64) : `ephemeral-${istDay(now)}`;
        const expiresAt = now + (hours as number) * 3_600_000;
        const created = d.db.transaction(() => {
          if (countActiveKeys(d.db, key.orgId, now, 'inference') >= EPHEMERAL_MAX_ACTIVE) {
            throw errors.rule('cap', `An organisation can hold at most ${EPHEMERAL_MAX_ACTIVE} active ephemeral keys`);
          }
          return insertKey(d.db, {
            orgId: key.orgId, workspaceId: key.workspaceId, name, tier: key.tier, scope: 'inference',
            dailyLimit: daily as number, expiresAt,
          }, now);
        }).immediate();
        return ok({
          id: created.id, key: created.key, prefix: created.prefix, name, scope: 'inference', daily_limit: daily,
          expires_at: new Date(expiresAt).toISOString(),
        });
      },
    },
  ];
}
