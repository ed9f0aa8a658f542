import { estimatePromptTokens } from '../billing/token-estimate.js';
import type { ClientReply } from '../domain/client-reply.js';
import type { KeyRecord } from '../domain/key-record.js';
import { messagesToChat } from '../formats/messages/request.js';
import { MessagesReply } from '../formats/messages/reply.js';
import { TranslatingReply } from '../formats/translating-reply.js';
import { kindsSpeaking } from '../providers/registry.js';
import { messagesBody } from './messages-body.js';
import type { InferenceService } from './inference-service.js';
import type { KeyAuthenticator } from './key-auth.js';
import type { RoutePlanner } from './route-planner.js';

/** The provider kinds that take Messages bodies as their own (Anthropic's). */
const NATIVE_KINDS = kindsSpeaking('anthropic-messages');

export interface MessagesDeps {
  inference: InferenceService;
  auth: KeyAuthenticator;
  planner: RoutePlanner;
}

export interface MessagesRequest {
  /** The caller's key, authenticated by the router (x-api-key or Bearer). */
  key: KeyRecord;
  /** The client's anthropic-beta header ('' when absent): passed to Anthropic routes with the body. */
  beta: string;
  /** The x-gw-guardrails header ('' or absent when not sent). */
  guardrails?: string;
  body: Buffer;
}

/**
 * The Anthropic Messages API (/v1/messages) on every catalog model: the body is translated to
 * the chat body and served by the inference path (auth, limits, routing, failover, billing and
 * ledger exactly as chat completions), and its answers, streams and errors are written back in
 * Anthropic's shapes.
 */
export class MessagesService {
  readonly #d: MessagesDeps;

  constructor(deps: MessagesDeps) {
    this.#d = deps;
  }

  /** Resolves to the cost billed. */
  handle(req: MessagesRequest, reply: ClientReply): Promise<number> {
    const format = new MessagesReply(reply.requestId);
    return this.#d.inference.handle('chat', { key: req.key, body: req.body, guardrails: req.guardrails }, new TranslatingReply(reply, format), (raw) => {
      // An Anthropic route is sent the client's bytes; the translation is made only if something needs it.
      const body = messagesBody(raw, req.beta, (model) => this.#d.planner.mayUseKind(model, NATIVE_KINDS, req.key.orgId));
      format.model = body.model;
      format.stops = body.stops;
      // Only a translated stream's message_start reads it (a stream passed through from Anthropic never does).
      if (body.stream) format.estimateFrom(body);
      return body;
    });
  }

  /**
   * POST /v1/messages/count_tokens: the gateway's own estimate of the prompt's tokens, on the
   * translated chat body. The key must be valid and the model routable for it, as for a
   * message; nothing is sent upstream, billed, counted against the key's limits or written to
   * the ledger.
   */
  countTokens(req: MessagesRequest): { input_tokens: number } {
    const key = req.key;
    const body = messagesToChat(req.body, true);
    this.#d.planner.plan(body.model, 'chat', body.ext, key.orgId);
    return { input_tokens: estimatePromptTokens('chat', body.payload) };
  }
}
