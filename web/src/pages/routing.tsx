import { useMemo, useState } from 'preact/hooks';
import { api, seg } from '../lib/api';
import { when } from '../lib/format';
import { navigate, useLocation, withQuery } from '../lib/router';
import { useSession } from '../lib/session';
import { useData } from '../lib/use-data';
import { Page, Section } from '../components/page';
import { Empty, ErrorNotice, Loading, Notice } from '../components/notice';
import { Confirm } from '../components/dialog';
import { ChainLoader } from './routing/chain-editor';
import type { Chain } from './routing/types';
import { catalogModels, type CatalogModel } from '../lib/catalog';
import './routing.css';

const KINDS: [string, string][] = [['chat', 'Chat'], ['embedding', 'Embeddings'], ['transcription', 'Transcription'], ['speech', 'Speech']];

/**
 * Routing chains (spec 4.7): the org's own order of providers, and fallback models, per catalog
 * model. Everyone reads them; owners and admins edit them (PUT/DELETE are admin routes).
 */
export function Routing() {
  const { me, can } = useSession();
  const admin = can('admin');
  const loc = useLocation();
  const chains = useData(() => api.get<{ data: Chain[] }>('/me/routing'), [me.org.id]);
  const models = useData(() => catalogModels(), []);
  const editing = loc.query.get('model');
  const [version, setVersion] = useState(0);
  const [removing, setRemoving] = useState<Chain | null>(null);
  const [busy, setBusy] = useState(false);
  const [removeError, setRemoveError] = useState<Error | null>(null);
  const [flash, setFlash] = useState('');

  const open = (model: string | null) => {
    setFlash('');
    navigate(withQuery(loc, { model }), { replace: true });
  };
  // From the list, the editor further down takes the focus (and scrolls into view).
  const edit = (model: string) => {
    open(model);
    requestAnimationFrame(() => document.getElementById('chain-model')?.focus());
  };
  const remove = async () => {
    if (!removing) return;
    setBusy(true);
    setRemoveError(null);
    try {
      await api.del(`/me/routing/${seg(removing.model)}`);
      await chains.reload();
      setFlash(`The chain for ${removing.model} is deleted: its requests use the catalog's routing again.`);
      setRemoving(null);
      setVersion((v) => v + 1);
    } catch (e) {
      setRemoveError(e as Error);
    } finally {
      setBusy(false);
    }
  };

  const list = chains.data?.data ?? [];
  const catalog = models.data ?? [];
  return (
    <Page title="Routing" lead="The order in which providers, and fallback models, are tried for a model's requests in this organisation.">
      {flash && <Notice tone="ok">{flash}</Notice>}
      <Section title="Saved chains">
        <ErrorNotice error={chains.error} />
        {!chains.data && chains.loading && <Loading />}
        {chains.data && list.length === 0 && <Empty>No saved chains: every model uses the catalog's routing.{admin ? ' Choose a model below to make one.' : ''}</Empty>}
        {list.length > 0 && (
          <ul class="chain-list">
            {list.map((c) => (
              <li key={c.model} class="chain-item">
                <div class="chain-item-head">
                  <h3><code>{c.model}</code></h3>
                  <span class="muted">Changed {when(c.updated_at)}</span>
                  {admin && (
                    <div class="actions">
                      <button type="button" class="btn btn-small" onClick={() => edit(c.model)} aria-label={`Edit the chain for ${c.model}`}>Edit</button>
                      <button type="button" class="btn btn-small btn-danger" onClick={() => { setRemoveError(null); setRemoving(c); }}
                        aria-label={`Delete the chain for ${c.model}`}>Delete</button>
                    </div>
                  )}
                </div>
                <ol class="chain-routes" aria-label={`Routes tried for ${c.model}, in order`}>
                  {c.routes.map((r) => (
                    <li key={`${r.provider}:${r.upstream_model}`}>
                      <strong>{r.provider}</strong>
                      {r.model !== c.model && <> · falls back to <code>{r.model}</code></>}
                      {!r.configured && <> <span class="badge badge-warn">not set up here: skipped</span></>}
                    </li>
                  ))}
                </ol>
              </li>
            ))}
          </ul>
        )}
      </Section>

      {admin ? (
        <Section title="Edit a chain" id="chain-editor">
          <ErrorNotice error={models.error} />
          {!models.data && models.loading && <Loading />}
          {models.data && <ModelPicker models={catalog} chains={list} value={editing} onChange={open} />}
          {models.data && editing && (
            <ChainLoader modelId={editing} models={catalog} version={version}
              onSaved={() => chains.reload()} onDelete={(c) => { setRemoveError(null); setRemoving(c); }} />
          )}
        </Section>
      ) : (
        <p class="muted">Owners and admins of {me.org.name} edit routing chains.</p>
      )}

      <Confirm open={removing !== null} title="Delete this chain?" confirmLabel="Delete chain" danger busy={busy}
        onConfirm={remove} onCancel={() => setRemoving(null)}>
        <p>Requests for <code>{removing?.model}</code> go back to the catalog's routing order at once.</p>
        <ErrorNotice error={removeError} />
      </Confirm>
    </Page>
  );
}

/** The catalog model to edit a chain for, grouped by kind; models with a saved chain say so. */
function ModelPicker(p: { models: CatalogModel[]; chains: Chain[]; value: string | null; onChange: (id: string | null) => void }) {
  const has = useMemo(() => new Set(p.chains.map((c) => c.model)), [p.chains]);
  return (
    <div class="field chain-model">
      <label for="chain-model">Model</label>
      <select id="chain-model" value={p.value ?? ''} onChange={(e) => p.onChange((e.target as HTMLSelectElement).value || null)}>
        <option value="">Choose a model…</option>
        {KINDS.map(([kind, label]) => (
          <optgroup key={kind} label={label}>
            {p.models.filter((m) => m.kind === kind).map((m) => (
              <option key={m.id} value={m.id}>{m.id}{has.has(m.id) ? ' (saved chain)' : ''}</option>
            ))}
          </optgroup>
        ))}
      </select>
    </div>
  );
}
