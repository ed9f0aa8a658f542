import { itemId } from '../formats/responses/answer.js';
import { checkBody, MAX_JSON_DEPTH, parseJsonObject } from '../domain/json-body.js';
import { decodeWithLiterals, LITERAL_BYTES, LITERALS_FROM, type LiteralTable } from '../lib/json-literals.js';
import { LiteralBody } from './literal-body.js';
import type { ClientReply } from '../domain/client-reply.js';
import type { KeyRecord } from '../domain/key-record.js';
import type { ResponseStore } from '../domain/response-store.js';
import { errors } from '../errors/catalog.js';
import type { Logger } from '../lib/logger.js';
import type { Clock } from '../lib/clock.js';
import type { Item } from '../formats/responses/items.js';
import { ResponsesFormat } from '../formats/responses/format.js';
import { inputItemsPage, storedItems } from '../formats/responses/input-items.js';
import { RESPONSES_CHECK, responsesToChat } from '../formats/responses/request.js';
import { writtenChat } from '../formats/responses/request-bytes.js';
import { WrittenBody } from './written-body.js';
import { TranslatingReply } from '../formats/translating-reply.js';
import { readExtensions } from '../domain/extensions.js';
import type { InferenceBody } from './inference-body.js';
import type { InferenceRequest, InferenceService } from './inference-service.js';
import type { KeyAuthenticator } from './key-auth.js';

export interface ResponsesDeps {
  inference: InferenceService;
  auth: KeyAuthenticator;
  store: ResponseStore;
  clock: Clock;
  log: Logger;
}

const INPUT: ReadonlySet<string> = new Set(['input']);

/**
 * The OpenAI Responses API (POST/GET/DELETE /v1/responses): a request is translated into a chat
 * completion and served by the inference path (auth, limits, routing, failover, billing and
 * ledger unchanged), its answer translated back; finished answers are stored per org unless
 * `store: false`, so that previous_response_id can continue the conversation.
 */
export class ResponsesService {
  readonly #d: ResponsesDeps;

  constructor(deps: ResponsesDeps) {
    this.#d = deps;
  }

  create(req: InferenceRequest, reply: ClientReply): Promise<number> {
    const format = new ResponsesFormat();
    return this.#d.inference.handle('chat', req, new TranslatingReply(reply, format), (raw, key) => this.#parse(raw, key, format));
  }

  /** GET /v1/responses/{id}: the stored response object. */
  async retrieve(key: KeyRecord, id: string): Promise<Record<string, unknown>> {
    const row = await this.#d.store.find(key.orgId, id);
    if (row === null) throw errors.responseNotFound(id);
    return JSON.parse(row.body) as Record<string, unknown>;
  }

  /** GET /v1/responses/{id}/input_items: the stored items before the response's own output. */
  async inputItems(key: KeyRecord, id: string, query: string): Promise<ReturnType<typeof inputItemsPage>> {
    const row = await this.#d.store.find(key.orgId, id);
    if (row === null) throw errors.responseNotFound(id);
    const items = JSON.parse(row.items) as Item[];
    const outputs = ((JSON.parse(row.body) as { output?: unknown[] }).output ?? []).length;
    return inputItemsPage(items.slice(0, items.length - outputs), query);
  }

  /** DELETE /v1/responses/{id}. */
  async remove(key: KeyRecord, id: string): Promise<{ id: string; object: 'response.deleted'; deleted: true }> {
    if (!await this.#d.store.remove(key.orgId, id)) throw errors.responseNotFound(id);
    return { id, object: 'response.deleted', deleted: true };
  }

  #parse(raw: Buffer, key: KeyRecord, format: ResponsesFormat): InferenceBody | Promise<InferenceBody> {
    // The chat request is written from the client's bytes where the request is of the usual
    // shapes (an agent's turn: Codex sends the whole conversation; a small request too, its members
    // around the input read from their spans: see docs/benchmarks.md); else an agent's turn is
    // decoded with the long strings of its input left as the client's literals, which the
    // translation moves.
    const written = this.#written(raw, key, format);
    if (written !== null) return written;
    const decoded = raw.length >= LITERALS_FROM ? decodeWithLiterals(raw, INPUT, LITERAL_BYTES, MAX_JSON_DEPTH) : null;
    let p: Record<string, unknown>;
    if (decoded === null) p = parseJsonObject(raw.toString('utf8'), RESPONSES_CHECK);
    else {
      p = decoded.body;
      checkBody(RESPONSES_CHECK, p);
    }
    const literals = decoded?.literals ?? null;
    const ext = readExtensions(p);
    const previous = p.previous_response_id;
    if (typeof previous !== 'string') return this.#request(raw, key, format, p, ext, null, literals);
    const continued = (row: { items: string } | null): InferenceBody => {
      if (row === null) throw errors.responseNotFound(previous);
      return this.#request(raw, key, format, p, ext, row.items, literals);
    };
    const row = this.#d.store.find(key.orgId, previous);
    return row instanceof Promise ? row.then(continued) : continued(row);
  }

  /** The request written from the client's bytes (formats/responses/request-bytes.ts); null when it must be translated as objects. */
  #written(raw: Buffer, key: KeyRecord, format: ResponsesFormat): InferenceBody | null {
    const w = writtenChat(raw);
    if (w === null) return null;
    const p = w.body;
    const model = p.model as string;
    const ctx = { id: itemId('resp'), createdAt: Math.floor(this.#d.clock.now() / 1000), model, echo: w.echo };
    format.begin(ctx, w.echo.store ? (response) => this.#save(key, ctx.id, model, response, [], w.input()) : null);
    const maxTokens = (p.max_output_tokens ?? null) as number | null;
    // Another provider's translation reads the request as objects: the object translation's, made then.
    const payload = (): Record<string, unknown> => {
      const d = decodeWithLiterals(raw, INPUT, LITERAL_BYTES, MAX_JSON_DEPTH);
      return d === null ? responsesToChat(JSON.parse(raw.toString('utf8')) as Record<string, unknown>, []).chat : d.literals.expand(responsesToChat(d.body, []).chat);
    };
    return new WrittenBody(w, model, p.stream === true, maxTokens, raw.length, w.ext, payload);
  }

  /** The chat request for a Responses request, continuing the stored conversation (its items' JSON) when there is one. */
  #request(raw: Buffer, key: KeyRecord, format: ResponsesFormat, p: Record<string, unknown>, ext: ReturnType<typeof readExtensions>,
    historyJson: string | null, literals: LiteralTable | null): InferenceBody {
    // A stored conversation holding U+0001 (a client may send it escaped in a small request)
    // could read as a placeholder beside this request's: the request is then decoded whole.
    if (literals !== null && historyJson !== null && historyJson.includes('\\u0001')) {
      p = literals.expand(p);
      literals = null;
    }
    const history = historyJson === null ? [] : JSON.parse(historyJson) as Item[];
    const historyBytes = historyJson === null ? 0 : Buffer.byteLength(historyJson);
    const { chat, input, echo } = responsesToChat(p, history);
    const model = p.model as string;
    const ctx = { id: itemId('resp'), createdAt: Math.floor(this.#d.clock.now() / 1000), model, echo };
    // A stored conversation keeps the input's text, not its placeholders.
    const onComplete = echo.store
      ? (response: Record<string, unknown>) => this.#save(key, ctx.id, model, response, history, literals === null ? input : literals.expand(input))
      : null;
    format.begin(ctx, onComplete);
    const stream = chat.stream === true;
    const maxTokens = (chat.max_tokens ?? null) as number | null;
    // A stored conversation is part of the prompt: the usage bounds must allow for it.
    const bytes = raw.length + historyBytes;
    if (literals !== null) return new LiteralBody(chat, literals, model, stream, maxTokens, bytes, ext);
    return { payload: chat, model, stream, maxTokens, bytes, ext, raw: null };
  }

  #save(key: KeyRecord, id: string, model: string, response: Record<string, unknown>, history: Item[], input: Item[]): void {
    try {
      const items = [...history, ...storedItems(input), ...(response.output as Item[])];
      const saved = this.#d.store.save({ id, orgId: key.orgId, createdAt: this.#d.clock.now(), model, body: JSON.stringify(response), items: JSON.stringify(items) });
      if (saved instanceof Promise) saved.catch((e: unknown) => this.#d.log.error('could not store a response', { id, org: key.orgId, err: String(e) }));
    } catch (e) {
      // The answer itself has reached the client; only its continuation is lost.
      this.#d.log.error('could not store a response', { id, org: key.orgId, err: String(e) });
    }
  }
}

