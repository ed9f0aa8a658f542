import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, seg } from '../../lib/api';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import type { CatalogModel, Chain, ChainStep } from './types';

/** Spec 8: a chain has 1 to 10 steps. */
export const MAX_STEPS = 10;

interface Row { key: number; model: string; provider: string }
let nextKey = 1;
const row = (model: string, provider: string | null): Row => ({ key: nextKey++, model, provider: provider ?? '' });

/**
 * The server numbers steps from 0 ("Invalid 'steps.1': it repeats step 0"); the editor shows
 * them from 1. Which step is wrong, if the message names one.
 */
export function stepsMessage(e: Error): { text: string; step: number | null } {
  if (!(e instanceof ApiError) || e.code !== 'bad_steps') return { text: e.message, step: null };
  const count = /1 to (\d+) steps/.exec(e.detail);
  if (count) return { text: `A chain needs 1 to ${count[1]} steps.`, step: null };
  const m = /Invalid 'steps\.(\d+)': (.*)$/.exec(e.detail);
  if (!m) return { text: e.message, step: null };
  const n = Number(m[1]) + 1;
  const why = m[2].replace(/repeats step (\d+)/, (_s, k: string) => `repeats step ${Number(k) + 1}`);
  return { text: `The routing steps need a fix. Step ${n}: ${why}${/[.!?]$/.test(why) ? '' : '.'}`, step: n - 1 };
}

/** Providers of a model as the catalog lists them, in its default order. */
const providersOf = (m: CatalogModel | undefined) => m?.routes ?? [];

/**
 * The steps of one model's chain: each a catalog model of the same kind and optionally one of
 * its providers, in the order requests try them. Reordered with Up/Down buttons (focus follows
 * the step it moved), saved whole with PUT /me/routing/:model.
 */
export function ChainEditor(p: {
  model: CatalogModel; models: CatalogModel[]; saved: Chain | null;
  onSaved: (c: Chain) => Promise<void>; onDelete: () => void;
}) {
  const byId = useMemo(() => new Map(p.models.map((m) => [m.id, m])), [p.models]);
  const sameKind = useMemo(() => p.models.filter((m) => m.kind === p.model.kind), [p.models, p.model.kind]);
  const initial = (): Row[] => (p.saved ? p.saved.steps.map((s) => row(s.model, s.provider))
    : providersOf(p.model).map((r) => row(p.model.id, r.provider)));
  const [rows, setRows] = useState<Row[]>(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ text: string; step: number | null } | null>(null);
  const [done, setDone] = useState('');
  // Said to screen readers after a move: where the step went.
  const [moved, setMoved] = useState('');
  const focusAfter = useRef<string | null>(null);

  // Before paint, so a keyboard user's next key press already lands on the moved step.
  useLayoutEffect(() => {
    if (focusAfter.current) document.getElementById(focusAfter.current)?.focus();
    focusAfter.current = null;
  });

  const change = (next: Row[]) => {
    setRows(next);
    setMoved('');
    setDone('');
    setError(null);
  };
  const move = (i: number, dir: -1 | 1) => {
    const j = i + dir;
    if (j < 0 || j >= rows.length) return;
    const next = rows.slice();
    [next[i], next[j]] = [next[j], next[i]];
    // Focus stays on the step that moved; at the top or bottom, on its other move button.
    const atEdge = j === 0 || j === next.length - 1;
    const side = atEdge ? (dir < 0 ? 'down' : 'up') : dir < 0 ? 'up' : 'down';
    focusAfter.current = next.length > 1 ? `step-${next[j].key}-${side}` : null;
    change(next);
    setMoved(`${next[j].provider || 'Any provider'} (${next[j].model}) is now step ${j + 1} of ${next.length}.`);
  };
  const remove = (i: number) => {
    const next = rows.filter((_r, k) => k !== i);
    const neighbour = next[Math.min(i, next.length - 1)];
    focusAfter.current = neighbour ? `step-${neighbour.key}-remove` : 'step-add';
    change(next);
  };
  const add = () => {
    const used = new Set(rows.filter((r) => r.model === p.model.id).map((r) => r.provider));
    const free = providersOf(p.model).find((r) => !used.has(r.provider));
    const r = row(p.model.id, free ? free.provider : null);
    focusAfter.current = `step-${r.key}-model`;
    change([...rows, r]);
  };
  const set = (i: number, patch: Partial<Row>) => change(rows.map((r, k) => (k === i ? { ...r, ...patch } : r)));

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone('');
    try {
      const steps: ChainStep[] = rows.map((r) => ({ model: r.model, provider: r.provider || null }));
      const saved = await api.put<Chain>(`/me/routing/${seg(p.model.id)}`, { steps });
      await p.onSaved(saved);
      setDone(`Saved. The next request for ${p.model.id} follows this chain.`);
    } catch (err) {
      setError(stepsMessage(err as Error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="chain-editor" onSubmit={save} aria-describedby="chain-help">
      <p id="chain-help" class="muted">
        Requests for <code>{p.model.id}</code> try these steps from the top; a step that fails passes the request to the next.
        A step may fall back to another {p.model.kind} model. “Any provider” tries that model's providers in the catalog's order.
      </p>
      {rows.length === 0 ? <p class="empty">No steps. Add one: a chain needs 1 to {MAX_STEPS}.</p> : (
        <ol class="chain-steps">
          {rows.map((r, i) => {
            const m = byId.get(r.model);
            const n = i + 1;
            return (
              <li key={r.key} class={error?.step === i ? 'chain-step chain-step-bad' : 'chain-step'}>
                <span class="chain-step-no" aria-hidden="true">{n}</span>
                <div class="field">
                  <label for={`step-${r.key}-model`}><span class="sr-only">Step {n} </span>Model</label>
                  <select id={`step-${r.key}-model`} value={r.model} aria-invalid={error?.step === i ? 'true' : undefined}
                    onChange={(e) => {
                      const id = (e.target as HTMLSelectElement).value;
                      const routes = providersOf(byId.get(id));
                      set(i, { model: id, provider: routes.some((x) => x.provider === r.provider) ? r.provider : '' });
                    }}>
                    {sameKind.map((o) => <option key={o.id} value={o.id}>{o.id}</option>)}
                  </select>
                </div>
                <div class="field">
                  <label for={`step-${r.key}-provider`}><span class="sr-only">Step {n} </span>Provider</label>
                  <select id={`step-${r.key}-provider`} value={r.provider} aria-invalid={error?.step === i ? 'true' : undefined}
                    onChange={(e) => set(i, { provider: (e.target as HTMLSelectElement).value })}>
                    <option value="">Any provider</option>
                    {providersOf(m).map((x) => (
                      <option key={x.provider} value={x.provider}>{x.provider}{x.configured ? '' : ' (not set up here)'}</option>
                    ))}
                  </select>
                </div>
                <div class="chain-step-actions">
                  <button type="button" class="btn btn-small" id={`step-${r.key}-up`} aria-label={`Move step ${n} up`}
                    disabled={i === 0} onClick={() => move(i, -1)}>Up</button>
                  <button type="button" class="btn btn-small" id={`step-${r.key}-down`} aria-label={`Move step ${n} down`}
                    disabled={i === rows.length - 1} onClick={() => move(i, 1)}>Down</button>
                  <button type="button" class="btn btn-small" id={`step-${r.key}-remove`} aria-label={`Remove step ${n}`}
                    onClick={() => remove(i)}>Remove</button>
                </div>
              </li>
            );
          })}
        </ol>
      )}
      <div class="actions">
        <button type="button" class="btn" id="step-add" disabled={rows.length >= MAX_STEPS} onClick={add}
          aria-describedby={rows.length >= MAX_STEPS ? 'steps-max' : undefined}>Add a step</button>
        <button type="submit" class="btn btn-primary" disabled={busy}>{busy ? 'Saving…' : 'Save chain'}</button>
        {p.saved && <button type="button" class="btn btn-danger" onClick={p.onDelete}>Delete chain</button>}
      </div>
      <p class="sr-only" role="status" aria-live="polite">{moved}</p>
      {rows.length >= MAX_STEPS && <p id="steps-max" class="hint">A chain has at most {MAX_STEPS} steps.</p>}
      {error && <Notice tone="error">{error.text}</Notice>}
      {done && <Notice tone="ok">{done}</Notice>}
    </form>
  );
}

/** The editor for one model: its saved chain read with GET /me/routing/:model (404: a new chain from the catalog's order). */
export function ChainLoader(p: { modelId: string; models: CatalogModel[]; onSaved: (c: Chain) => Promise<void>; onDelete: (c: Chain) => void; version: number }) {
  const [state, setState] = useState<{ chain: Chain | null } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  useEffect(() => {
    let live = true;
    setState(null);
    setError(null);
    api.get<Chain>(`/me/routing/${seg(p.modelId)}`)
      .then((c) => live && setState({ chain: c }))
      .catch((e: Error) => {
        if (!live) return;
        if (e instanceof ApiError && e.code === 'not_found') setState({ chain: null });
        else setError(e);
      });
    return () => void (live = false);
  }, [p.modelId, p.version]);
  const model = p.models.find((m) => m.id === p.modelId);
  if (error) return <ErrorNotice error={error} />;
  if (!state) return <Loading />;
  if (!model) return <Notice tone="error">That model is not in the catalog.</Notice>;
  const saved = async (c: Chain): Promise<void> => {
    setState({ chain: c });
    await p.onSaved(c);
  };
  return (
    <>
      {!state.chain && <p class="muted">No saved chain yet: requests use the catalog's order, shown here as a starting point.</p>}
      <ChainEditor key={`${p.modelId}-${p.version}`} model={model} models={p.models} saved={state.chain}
        onSaved={saved} onDelete={() => state.chain && p.onDelete(state.chain)} />
    </>
  );
}
