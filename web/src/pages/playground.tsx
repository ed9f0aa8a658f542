import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../lib/api';
import { money, ms, num } from '../lib/format';
import { useSession } from '../lib/session';
import { useData } from '../lib/use-data';
import { catalogModels, type CatalogModel } from '../lib/catalog';
import { Page, Section } from '../components/page';
import { ErrorNotice, Loading, Notice } from '../components/notice';
import { Field, Select, TextArea } from '../components/field';
import { forgetPlaygroundOffer, optionalWhole, playgroundOffer } from './keys/key-types';
import { streamChat, type Usage } from './playground/chat-stream';
import './keys.css';

interface LedgerRow { request_id: string; status: number; cost: number; provider: string | null; prompt_tokens: number; completion_tokens: number }

interface Run {
  /** Which send this is: a late answer of an earlier one (its ledger lookup) never lands on a newer. */
  seq: number;
  state: 'sending' | 'streaming' | 'done' | 'stopped' | 'failed';
  model: string;
  text: string;
  error: Error | null;
  requestId: string | null;
  provider: string | null;
  ttft: number | null;
  total: number | null;
  usage: Usage | null;
  /** From the ledger: a number once found, 'looking' meanwhile, 'absent' when it did not show up. */
  cost: number | 'looking' | 'absent' | null;
}

const DEFAULT_MODEL = 'sandbox/echo';
/** The ledger is written in batches (every ~100 ms by default): look a few times, then say so. */
const LEDGER_TRIES = 20;
const LEDGER_WAIT_MS = 300;

/**
 * Send a streamed chat with one of the org's keys and see what the gateway did with it: the
 * answer as it arrives, tokens, the provider that served it, time to first token, latency, and
 * the cost from the ledger. The dashboard never holds full keys: the key is typed or pasted here
 * (or offered by the keys page from this tab's sessionStorage) and sent only to /v1.
 */
export function Playground() {
  const { me } = useSession();
  const models = useData(() => catalogModels(), []);
  const chat = useMemo(() => {
    const list = (models.data ?? []).filter((m) => m.kind === 'chat');
    return [...list.filter((m) => m.available), ...list.filter((m) => !m.available)];
  }, [models.data]);
  const [chosen, setModel] = useState('');
  // Until one is picked, the free local model (or the first one a provider serves here).
  const model = chosen || (chat.some((m) => m.id === DEFAULT_MODEL) ? DEFAULT_MODEL : chat[0]?.id ?? '');
  const [key, setKey] = useState(playgroundOffer);
  const offered = useRef(key !== '');
  const [prompt, setPrompt] = useState('');
  const [maxTokens, setMaxTokens] = useState('');
  const [formError, setFormError] = useState('');
  const [run, setRun] = useState<Run | null>(null);
  const abort = useRef<AbortController | null>(null);
  const seq = useRef(0);
  const alive = useRef(true);
  useEffect(() => () => {
    alive.current = false;
    abort.current?.abort();
  }, []);

  const current = (n: number) => alive.current && seq.current === n;
  const update = (n: number, change: Partial<Run>) => current(n) && setRun((r) => (r && r.seq === n ? { ...r, ...change } : r));
  const busy = run?.state === 'sending' || run?.state === 'streaming';

  const send = async (e: Event) => {
    e.preventDefault();
    const cap = optionalWhole('Max tokens', maxTokens, 1, 1_000_000);
    if (!model) return setFormError('Pick a model first (the catalog has not loaded).');
    if (!key.trim()) return setFormError('Paste one of your API keys first.');
    if (!prompt.trim()) return setFormError('Write a prompt first.');
    if ('error' in cap) return setFormError(cap.error);
    setFormError('');
    const ctrl = new AbortController();
    abort.current = ctrl;
    const n = ++seq.current;
    setRun({ seq: n, state: 'sending', model, text: '', error: null, requestId: null, provider: null, ttft: null, total: null, usage: null, cost: null });
    const t0 = performance.now();
    let requestId: string | null = null;
    try {
      await streamChat({ key: key.trim(), model, prompt, maxTokens: cap.value, signal: ctrl.signal }, {
        onStart: (h) => {
          requestId = h.requestId;
          update(n, { state: 'streaming', requestId: h.requestId, provider: h.provider });
        },
        onText: (t, at, first) => current(n) && setRun((r) => (r && r.seq === n ? { ...r, text: r.text + t, ttft: first ? at : r.ttft } : r)),
        onUsage: (u) => update(n, { usage: u }),
      });
      update(n, { state: 'done', total: performance.now() - t0 });
    } catch (err) {
      const stopped = (err as Error).name === 'AbortError';
      update(n, { state: stopped ? 'stopped' : 'failed', error: stopped ? null : (err as Error), total: performance.now() - t0 });
    } finally {
      if (abort.current === ctrl) abort.current = null;
    }
    if (requestId) void findCost(n, requestId);
  };

  /** The ledger row of this request (GET /me/activity/events, newest first), polled briefly. */
  const findCost = async (n: number, requestId: string) => {
    update(n, { cost: 'looking' });
    for (let i = 0; i < LEDGER_TRIES && current(n); i++) {
      try {
        // The request's own rows (every attempt), however busy the org's ledger is.
        const page = await api.get<{ data: LedgerRow[] }>(`/me/activity/events?request_id=${encodeURIComponent(requestId)}&limit=20`);
        const rows = page.data.filter((r) => r.request_id === requestId);
        if (rows.length > 0) {
          const cost = Math.round(rows.reduce((s, r) => s + r.cost, 0) * 1e6) / 1e6;
          return update(n, { cost });
        }
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, LEDGER_WAIT_MS));
    }
    update(n, { cost: 'absent' });
  };

  const picked = chat.find((m) => m.id === model);
  return (
    <Page title="Playground" lead="Send a streamed chat to any catalog model with one of your keys, and see what the gateway did with it.">
      <div class="play">
        <Section title="Request">
          <ErrorNotice error={models.error} />
          {!models.data && models.loading && <Loading label="Loading the catalog…" />}
          <form class="form" onSubmit={send} noValidate>
            <Select label="Model" value={model} onChange={setModel}
              options={chat.map((m) => ({ value: m.id, label: `${m.name} (${m.id})${m.available ? '' : ' · no provider here'}` }))}
              hint={picked && <>{priceOf(picked)}{!picked.available && ' No provider for it is configured on this gateway.'}</>} />
            <Field label="API key" type="password" value={key} onInput={setKey} autoComplete="off" name="playground-key"
              hint={offered.current
                ? <>The key you just created, kept in this tab only. <button type="button" class="btn-link" onClick={() => { forgetPlaygroundOffer(); offered.current = false; setKey(''); }}>Forget it</button></>
                : <>Paste one of the API keys of {me.org.name}. The dashboard never stores full keys: this one stays in this page until you leave it.</>} />
            <TextArea label="Prompt" value={prompt} onInput={setPrompt} rows={5} name="prompt" />
            <Field label="Max tokens" value={maxTokens} onInput={setMaxTokens} inputMode="numeric" autoComplete="off" hint="Optional: the longest answer, in tokens." />
            {formError && <p role="alert" class="error-text">{formError}</p>}
            <div class="actions">
              <button type="submit" class="btn btn-primary" disabled={busy}>{run?.state === 'sending' ? 'Sending…' : run?.state === 'streaming' ? 'Streaming…' : 'Send'}</button>
              <button type="button" class="btn" disabled={!busy} onClick={() => abort.current?.abort()}>Stop</button>
            </div>
          </form>
        </Section>
        <Section title="Answer">
          {!run && <p class="muted">The answer appears here as it streams.</p>}
          {run && <Answer run={run} />}
        </Section>
      </div>
    </Page>
  );
}

/** What the model costs here: the prices of the routes configured on this gateway (the one that serves is billed). */
function priceOf(m: CatalogModel): string {
  const routes = m.routes.filter((r) => r.configured).map((r) => r.pricing);
  const prices = routes.length > 0 ? routes : [m.pricing];
  const input = Math.min(...prices.map((p) => p.input));
  const output = Math.min(...prices.map((p) => p.output));
  const varies = prices.some((p) => p.input !== input || p.output !== output);
  return `${varies ? 'From ' : ''}${money(input)} in, ${money(output)} out per million tokens.`;
}

function Answer({ run }: { run: Run }) {
  const streaming = run.state === 'sending' || run.state === 'streaming';
  return (
    <>
      {run.state === 'failed' && run.error && (
        <Notice tone="error">
          {run.error.message}
          {run.error instanceof ApiError && run.error.retryAfter !== null && ` The gateway asks to wait ${run.error.retryAfter} s before the next try.`}
        </Notice>
      )}
      {run.state === 'stopped' && <Notice tone="info">Stopped. What arrived before is kept below.</Notice>}
      {(run.text || run.state !== 'failed') && (
        <pre class="play-answer" aria-busy={streaming ? 'true' : 'false'} aria-label={`Answer of ${run.model}`} tabIndex={0}>{run.text || (streaming ? 'Waiting for the first token…' : '')}</pre>
      )}
      <dl class="play-facts" aria-label="About this request">
        <dt>Model</dt><dd>{run.model}</dd>
        <dt>Provider</dt><dd>{run.provider ?? '—'}</dd>
        <dt>Time to first token</dt><dd>{ms(run.ttft)}</dd>
        <dt>Total latency</dt><dd>{streaming ? 'streaming…' : ms(run.total)}</dd>
        <dt>Tokens</dt>
        <dd>{run.usage ? `${num(run.usage.prompt_tokens)} in, ${num(run.usage.completion_tokens)} out (${num(run.usage.total_tokens)} in all)`
          : streaming ? '…' : run.state === 'done' ? 'Not reported by the provider' : '—'}</dd>
        <dt>Cost</dt>
        <dd>{run.cost === null ? '—' : run.cost === 'looking' ? 'Reading the ledger…'
          : run.cost === 'absent' ? 'Not in this organisation’s ledger (the key may belong to another organisation)' : money(run.cost)}</dd>
        <dt>Request id</dt><dd>{run.requestId ? <code>{run.requestId}</code> : '—'}</dd>
      </dl>
    </>
  );
}
