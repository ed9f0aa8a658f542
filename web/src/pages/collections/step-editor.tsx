import { useId } from 'preact/hooks';
import type { CatalogModel } from './types';

/** A step being edited: model '' is the collection's own model, provider '' any provider in catalog order. */
export interface StepRow { key: number; model: string; provider: string }

export const MAX_STEPS = 10;
let nextKey = 1;
export const newRow = (model = '', provider = ''): StepRow => ({ key: nextKey++, model, provider });

/**
 * The steps of a chain, in the order requests try them: 1 to 10, each a model of the collection's
 * kind and optionally the one provider to use for it; added, removed and moved by buttons.
 */
export function StepEditor(p: {
  rows: StepRow[]; onChange: (rows: StepRow[]) => void; model: CatalogModel | undefined; models: CatalogModel[]; invalid?: boolean;
}) {
  const id = useId();
  const sameKind = p.models.filter((m) => m.kind === p.model?.kind);
  const move = (i: number, by: -1 | 1, which: string) => {
    const rows = [...p.rows];
    const [row] = rows.splice(i, 1);
    rows.splice(i + by, 0, row);
    p.onChange(rows);
    // Focus stays with the moved step's button (or its neighbour once it reaches an end).
    requestAnimationFrame(() => {
      const at = i + by;
      const want = (at === 0 && which === 'up') || (at === rows.length - 1 && which === 'down') ? (which === 'up' ? 'down' : 'up') : which;
      document.getElementById(`${id}-${row.key}-${want}`)?.focus();
    });
  };
  const set = (i: number, change: Partial<StepRow>) => p.onChange(p.rows.map((r, j) => (j === i ? { ...r, ...change } : r)));
  return (
    <fieldset class="coll-steps-editor" aria-invalid={p.invalid ? 'true' : undefined} aria-describedby={`${id}-hint`}>
      <legend>Steps</legend>
      <p id={`${id}-hint`} class="hint">Requests try these in order and fail over to the next. 1 to {MAX_STEPS} steps.</p>
      <ol class="coll-step-rows">
        {p.rows.map((r, i) => {
          const stepModel = p.models.find((m) => m.id === (r.model || p.model?.id));
          const n = i + 1;
          return (
            <li key={r.key} class="coll-step-row">
              <span class="coll-step-number" aria-hidden="true">{n}</span>
              <div class="field">
                <label for={`${id}-${r.key}-model`}>Step {n} model</label>
                <select id={`${id}-${r.key}-model`} value={r.model} onChange={(e) => {
                  const model = (e.target as HTMLSelectElement).value;
                  const m = p.models.find((x) => x.id === (model || p.model?.id));
                  set(i, { model, provider: m?.routes.some((x) => x.provider === r.provider) ? r.provider : '' });
                }}>
                  <option value="">Same as the collection</option>
                  {sameKind.filter((m) => m.id !== p.model?.id).map((m) => <option key={m.id} value={m.id}>{m.name} ({m.id})</option>)}
                </select>
              </div>
              <div class="field">
                <label for={`${id}-${r.key}-provider`}>Step {n} provider</label>
                <select id={`${id}-${r.key}-provider`} value={r.provider} onChange={(e) => set(i, { provider: (e.target as HTMLSelectElement).value })}>
                  <option value="">Any provider, in catalog order</option>
                  {(stepModel?.routes ?? []).map((x) => (
                    <option key={x.provider} value={x.provider}>{x.provider}{x.configured ? '' : ' (not configured here)'}</option>
                  ))}
                </select>
              </div>
              <div class="coll-step-buttons">
                <button type="button" class="btn btn-small" id={`${id}-${r.key}-up`} disabled={i === 0} onClick={() => move(i, -1, 'up')}
                  aria-label={`Move step ${n} up`}>↑</button>
                <button type="button" class="btn btn-small" id={`${id}-${r.key}-down`} disabled={i === p.rows.length - 1}
                  onClick={() => move(i, 1, 'down')} aria-label={`Move step ${n} down`}>↓</button>
                <button type="button" class="btn btn-small" disabled={p.rows.length === 1} onClick={() => p.onChange(p.rows.filter((_, j) => j !== i))}
                  aria-label={`Remove step ${n}`}>Remove</button>
              </div>
            </li>
          );
        })}
      </ol>
      <button type="button" class="btn btn-small" disabled={p.rows.length >= MAX_STEPS} onClick={() => p.onChange([...p.rows, newRow()])}>
        Add a step
      </button>
    </fieldset>
  );
}
