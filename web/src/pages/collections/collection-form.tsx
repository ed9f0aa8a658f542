import { useId, useMemo, useState } from 'preact/hooks';
import { api, ApiError, seg } from '../../lib/api';
import { Check, Field } from '../../components/field';
import { Notice } from '../../components/notice';
import { Readme } from './readme';
import { newRow, StepEditor, type StepRow } from './step-editor';
import type { CatalogModel, OrgCollection, Step } from './types';

const KIND_ORDER = ['chat', 'embedding', 'transcription', 'speech'];
const README_MAX = 20_000;

/** Which field a refused save names, from the spec's code. */
const FIELD_OF: Record<string, 'name' | 'model' | 'steps' | 'readme'> = { bad_name: 'name', bad_model: 'model', bad_steps: 'steps', bad_readme: 'readme' };

/**
 * Create or edit one of the org's collections: name, model, steps, README (with a preview) and
 * whether it is in the public registry. An edit sends only what changed; the gateway bumps the version.
 */
export function CollectionForm(p: { editing: OrgCollection | null; models: CatalogModel[]; onSaved: (c: OrgCollection) => void; onCancel: () => void }) {
  const e = p.editing;
  const firstModel = p.models.find((m) => m.id === 'llama-3.3-70b-instruct') ?? p.models.find((m) => m.kind === 'chat') ?? p.models[0];
  const [name, setName] = useState(e?.name ?? '');
  const [model, setModel] = useState(e?.model ?? firstModel?.id ?? '');
  const [rows, setRows] = useState<StepRow[]>(() =>
    e ? e.steps.map((s) => newRow(s.model === e.model ? '' : s.model, s.provider ?? '')) : [newRow()]);
  const [readme, setReadme] = useState(e?.readme_md ?? '');
  const [isPublic, setPublic] = useState(e?.public ?? false);
  const [preview, setPreview] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [note, setNote] = useState('');
  const modelId = useId();
  const readmeId = useId();
  const byKind = useMemo(() => {
    const groups = new Map<string, CatalogModel[]>();
    for (const m of p.models) groups.set(m.kind, [...(groups.get(m.kind) ?? []), m]);
    return [...groups].sort((a, b) => (KIND_ORDER.indexOf(a[0]) + 99) % 99 - (KIND_ORDER.indexOf(b[0]) + 99) % 99);
  }, [p.models]);
  const current = p.models.find((m) => m.id === model);
  const bad = error instanceof ApiError ? FIELD_OF[error.code] : undefined;

  const changeModel = (id: string) => {
    const next = p.models.find((m) => m.id === id);
    setModel(id);
    // Steps that name a model of another kind, or a provider the new model lacks, would be refused: they follow the new model.
    setRows(rows.map((r) => {
      const stepModel = p.models.find((m) => m.id === r.model);
      const keepModel = r.model !== '' && stepModel?.kind === next?.kind ? r.model : '';
      const serves = p.models.find((m) => m.id === (keepModel || id))?.routes.some((x) => x.provider === r.provider);
      return { ...r, model: keepModel, provider: serves ? r.provider : '' };
    }));
  };

  const submit = async (ev: Event) => {
    ev.preventDefault();
    const body: Record<string, unknown> = bodyOf(name, model, rows.map((r) => ({ model: r.model || model, provider: r.provider || null })), readme, isPublic);
    if (e) {
      const before = bodyOf(e.name, e.model, e.steps, e.readme_md, e.public);
      for (const k of Object.keys(body)) if (JSON.stringify(body[k]) === JSON.stringify(before[k])) delete body[k];
      if (Object.keys(body).length === 0) {
        setError(null);
        setNote('Nothing to save: no field changed.');
        return;
      }
    }
    setBusy(true);
    setError(null);
    setNote('');
    try {
      const saved = e ? await api.patch<OrgCollection>(`/me/collections/${seg(e.id)}`, body) : await api.post<OrgCollection>('/me/collections', body);
      p.onSaved(saved);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="form coll-form" onSubmit={submit} noValidate>
      <Field label="Name" value={name} onInput={setName} maxLength={64} invalid={bad === 'name'} hint="Up to 64 characters. The address (slug) is set once and stays." />
      <div class="field">
        <label for={modelId}>Model</label>
        <select id={modelId} value={model} onChange={(ev) => changeModel((ev.target as HTMLSelectElement).value)} aria-invalid={bad === 'model' ? 'true' : undefined}
          aria-describedby={modelId + '-hint'}>
          {byKind.map(([kind, list]) => (
            <optgroup key={kind} label={kind}>
              {list.map((m) => <option key={m.id} value={m.id}>{m.name} ({m.id}){m.available ? '' : ' · not configured here'}</option>)}
            </optgroup>
          ))}
        </select>
        <small id={modelId + '-hint'} class="hint">Requests for this model follow the steps once the collection is imported as routing.</small>
      </div>
      <StepEditor rows={rows} onChange={setRows} model={current} models={p.models} invalid={bad === 'steps'} />
      <div class="field">
        <label for={readmeId}>README (Markdown)</label>
        <textarea id={readmeId} rows={8} value={readme} onInput={(ev) => setReadme((ev.target as HTMLTextAreaElement).value)}
          aria-describedby={readmeId + '-hint'} aria-invalid={bad === 'readme' ? 'true' : undefined} />
        <small id={readmeId + '-hint'} class="hint">
          What it is for and why the steps are in this order. Up to {README_MAX.toLocaleString('en-IN')} characters ({readme.length.toLocaleString('en-IN')} used); images show as links.
        </small>
      </div>
      <div>
        <button type="button" class="btn btn-small" aria-expanded={preview} onClick={() => setPreview(!preview)}>{preview ? 'Hide the preview' : 'Preview the README'}</button>
      </div>
      {preview && <div class="coll-readme-preview"><Readme source={readme} label="README preview" /></div>}
      <Check label="Public: list it in the registry for every organisation to see, star and fork" checked={isPublic} onChange={setPublic} />
      {error && <Notice tone="error">{error.message}</Notice>}
      {note && <Notice tone="info">{note}</Notice>}
      <div class="actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>{busy ? 'Saving…' : e ? 'Save changes' : 'Create collection'}</button>
        <button type="button" class="btn" onClick={p.onCancel}>Cancel</button>
      </div>
    </form>
  );
}

/** The fields as the API takes them; a step names its provider only when it has one. */
function bodyOf(name: string, model: string, steps: Step[], readme: string, isPublic: boolean): Record<string, unknown> {
  return {
    name, model, steps: steps.map((s) => (s.provider ? { model: s.model, provider: s.provider } : { model: s.model })), readme_md: readme, public: isPublic,
  };
}
