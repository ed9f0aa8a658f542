import type { UsageRecord } from '../domain/usage-record.js';
import { FIRST_TOKEN_SECONDS, OPERATION_SECONDS, TOKENS } from './buckets.js';
import { OTHER, type CodeLabels } from './code-labels.js';
import type { HistogramChild, Registry, Scalar } from './registry.js';

/** Every series one usage record touches, for one (endpoint, model, provider, status, code). */
interface Group {
  readonly endpoint: string;
  readonly provider: string | null;
  readonly status: number;
  /** The record's code, or OTHER for every code past the cap (CodeLabels). */
  readonly code: string | null;
  readonly attempts: Scalar;
  readonly duration: HistogramChild;
  readonly inputTokens: Scalar;
  readonly outputTokens: Scalar;
  readonly cachedTokens: Scalar;
  readonly costMicros: Scalar;
  readonly inputUsage: HistogramChild;
  readonly outputUsage: HistogramChild;
  readonly firstToken: HistogramChild;
}

/**
 * The series fed by usage records: one record per upstream attempt, teed off the ledger's sink.
 * A record finds its group by its model (a Map lookup on a string it already has) and a scan of
 * that model's few groups by reference-equal fields: no key string is built per record.
 */
export class UsageSeries {
  readonly #groups = new Map<string, Group[]>();
  /** Records of models outside the catalog share these groups under the model label `other`. */
  readonly #others: Group[] = [];
  readonly #knownModel: (id: string) => boolean;
  readonly #knownProvider: (id: string) => boolean;
  readonly #codes: CodeLabels;
  readonly #attempts;
  readonly #duration;
  readonly #tokens;
  readonly #cost;
  readonly #usage;
  readonly #firstToken;
  readonly #hits;
  readonly #guardrails;
  /** Detection counters by action and detector (requests a guardrail acted on only). */
  readonly #guardChildren = new Map<string, Scalar>();
  /** Hit counters by endpoint and model label (hits only: no key is built for other records). */
  readonly #hitChildren = new Map<string, Scalar>();

  constructor(reg: Registry, knownModel: (id: string) => boolean, knownProvider: (id: string) => boolean, codes: CodeLabels) {
    this.#knownModel = knownModel;
    this.#knownProvider = knownProvider;
    this.#codes = codes;
    this.#attempts = reg.counter('gw_upstream_attempts_total',
      'Upstream attempts by endpoint, provider, requested model, status and error code (one per ledger row; a failover makes several per request).',
      ['endpoint', 'provider', 'model', 'status', 'code']);
    this.#duration = reg.histogram('gen_ai_client_operation_duration_seconds',
      'Duration of each upstream attempt, the gateway being the client of the provider (gen_ai.client.operation.duration); streams until their end.',
      ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model', 'error_type'], OPERATION_SECONDS);
    this.#tokens = reg.counter('gw_tokens_total',
      'Tokens billed by the serving attempts: input, output, and cached (the part of input read from the provider\'s prompt cache).',
      ['provider', 'model', 'type']);
    this.#cost = reg.counter('gw_cost_inr_total', 'What serving attempts cost their callers, in rupees (BYOK and trial keys: 0), as debited in the ledger.',
      ['provider', 'model']);
    this.#cost.divisor = 1e6;
    this.#usage = reg.histogram('gen_ai_client_token_usage', 'Tokens per served request, by type (gen_ai.client.token.usage).',
      ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model', 'gen_ai_token_type'], TOKENS);
    this.#firstToken = reg.histogram('gen_ai_server_time_to_first_token_seconds',
      'Served streams: from the attempt\'s start to the first chunk of the answer (gen_ai.server.time_to_first_token).',
      ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model'], FIRST_TOKEN_SECONDS);
    this.#guardrails = reg.counter('gw_guardrail_detections_total',
      'Requests a guardrail acted on, by action (redacted, blocked) and detector (docs/guardrails.md); a request counts once per detector that fired.',
      ['action', 'detector']);
    this.#hits = reg.counter('gw_cache_hits_total', 'Requests answered from the exact-match response cache (no upstream attempt, no cost), by endpoint and requested model.',
      ['endpoint', 'model']);
  }

  record(r: UsageRecord): void {
    if (r.cacheHit) return this.#hit(r);
    // Every attempt's record carries what the guardrail did: count it once, on the served or refused one.
    if (r.guardrail !== null && (r.billable || r.errorCode === 'guardrail_blocked')) this.#guarded(r.guardrail);
    let list = this.#groups.get(r.model);
    if (list === undefined) {
      if (this.#knownModel(r.model)) this.#groups.set(r.model, list = []);
      else list = this.#others;
    }
    // Outside the catalog, providers too are matched by their label: org endpoints' ids must not grow the list.
    const provider = list === this.#others && r.provider !== null && !this.#knownProvider(r.provider) ? OTHER : r.provider;
    let g: Group | null = null;
    for (let i = 0; i < list.length; i++) {
      const c = list[i];
      if (c.status === r.status && c.provider === provider && c.code === r.errorCode && c.endpoint === r.endpoint) {
        g = c;
        break;
      }
    }
    if (g === null) g = this.#missed(list, r, provider);
    g.attempts.value++;
    const seconds = r.latencyMs / 1000;
    g.duration.observe(seconds);
    if (!r.billable) return;
    g.inputTokens.value += r.promptTokens;
    g.outputTokens.value += r.completionTokens;
    g.cachedTokens.value += r.cachedTokens;
    g.costMicros.value += r.costMicros;
    // Audio is billed in seconds or characters, not tokens.
    if (r.units === 0) {
      g.inputUsage.observe(r.promptTokens);
      g.outputUsage.observe(r.completionTokens);
    }
    if (r.streamed && r.ttfbMs !== null) g.firstToken.observe(r.ttfbMs / 1000);
  }

  /** 'redacted=aadhaar,pan' or 'blocked=card', as the ledger's guardrail column has it. */
  #guarded(summary: string): void {
    const eq = summary.indexOf('=');
    if (eq < 0) return;
    const action = summary.slice(0, eq);
    for (const detector of summary.slice(eq + 1).split(',')) {
      const id = `${action}\n${detector}`;
      let c = this.#guardChildren.get(id);
      if (c === undefined) this.#guardChildren.set(id, c = this.#guardrails.child(action, detector));
      c.value++;
    }
  }

  #hit(r: UsageRecord): void {
    const model = this.#knownModel(r.model) ? r.model : OTHER;
    const id = `${r.endpoint}\n${model}`;
    let c = this.#hitChildren.get(id);
    if (c === undefined) this.#hitChildren.set(id, c = this.#hits.child(r.endpoint, model));
    c.value++;
  }

  /** A record no group matched: a code past the cap joins its `other` group, anything else gets a new group. */
  #missed(list: Group[], r: UsageRecord, provider: string | null): Group {
    const code = this.#codes.label(r.errorCode);
    if (code === OTHER) {
      for (const c of list) if (c.code === OTHER && c.status === r.status && c.provider === provider && c.endpoint === r.endpoint) return c;
    }
    const g = this.#group(r, list === this.#others ? OTHER : r.model, provider, code);
    list.push(g);
    return g;
  }

  /** `rawProvider`: the record's, or OTHER when both it and the model are outside the catalog; `code`: its label. */
  #group(r: UsageRecord, model: string, rawProvider: string | null, code: string): Group {
    const provider = rawProvider === null ? '' : this.#knownProvider(rawProvider) ? rawProvider : OTHER;
    const op = r.endpoint;
    return {
      endpoint: r.endpoint, provider: rawProvider, status: r.status, code: code === '' ? null : code,
      attempts: this.#attempts.child(r.endpoint, provider, model, String(r.status), code),
      duration: this.#duration.child(op, provider, model, code),
      inputTokens: this.#tokens.child(provider, model, 'input'),
      outputTokens: this.#tokens.child(provider, model, 'output'),
      cachedTokens: this.#tokens.child(provider, model, 'cached'),
      costMicros: this.#cost.child(provider, model),
      inputUsage: this.#usage.child(op, provider, model, 'input'),
      outputUsage: this.#usage.child(op, provider, model, 'output'),
      firstToken: this.#firstToken.child(op, provider, model),
    };
  }
}
