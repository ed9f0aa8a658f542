import { useState } from 'preact/hooks';
import { api, ApiError, seg } from '../lib/api';
import { num, when } from '../lib/format';
import { useSession } from '../lib/session';
import { useData } from '../lib/use-data';
import { Page } from '../components/page';
import { ErrorNotice, Loading, Notice } from '../components/notice';
import { Confirm } from '../components/dialog';
import { KeyDialog } from './routing/key-dialog';
import { DiscoveredList } from './routing/discovered-list';
import { residency, type ByokProvider, type KeyTest, type SavedKey } from './routing/types';
import './routing.css';

type TestState = { busy: true } | { busy: false; result: KeyTest } | { busy: false; error: Error };

/**
 * Provider keys (spec 4.5, owners): the org's own key per provider, checked live before it is
 * saved. After saving, only the masked form the API returns is ever shown.
 */
export function Providers() {
  const { me } = useSession();
  const list = useData(() => api.get<{ data: ByokProvider[] }>('/me/byok'), [me.org.id]);
  const [editing, setEditing] = useState<ByokProvider | null>(null);
  const [removing, setRemoving] = useState<ByokProvider | null>(null);
  const [removeBusy, setRemoveBusy] = useState(false);
  const [removeError, setRemoveError] = useState<Error | null>(null);
  const [tests, setTests] = useState<Record<string, TestState | undefined>>({});
  const [models, setModels] = useState<string | null>(null);
  const [flash, setFlash] = useState('');

  const disabled = list.error instanceof ApiError && list.error.code === 'byok_disabled';
  const saved = async (p: ByokProvider, k: SavedKey) => {
    setEditing(null);
    setTests((t) => ({ ...t, [p.provider]: undefined }));
    await list.reload();
    setFlash(`Saved the ${p.name} key ${k.key}: ${p.name} accepted it and listed ${num(k.models)} model${k.models === 1 ? '' : 's'}.`);
  };
  const test = async (p: ByokProvider) => {
    setTests((t) => ({ ...t, [p.provider]: { busy: true } }));
    try {
      const result = await api.post<KeyTest>(`/me/byok/${seg(p.provider)}/test`);
      setTests((t) => ({ ...t, [p.provider]: { busy: false, result } }));
      if (result.result === 'ok') void list.reload();
    } catch (e) {
      setTests((t) => ({ ...t, [p.provider]: { busy: false, error: e as Error } }));
    }
  };
  const remove = async () => {
    if (!removing) return;
    setRemoveBusy(true);
    setRemoveError(null);
    try {
      await api.del(`/me/byok/${seg(removing.provider)}`);
      await list.reload();
      setFlash(`Removed the ${removing.name} key.`);
      if (models === removing.provider) setModels(null);
      setTests((t) => ({ ...t, [removing.provider]: undefined }));
      setRemoving(null);
    } catch (e) {
      setRemoveError(e as Error);
    } finally {
      setRemoveBusy(false);
    }
  };

  return (
    <Page title="Provider keys" lead={<>Your organisation's own provider keys (bring your own key). Requests served on them are paid to the provider directly and not debited here.</>}>
      {flash && <Notice tone="ok">{flash}</Notice>}
      {disabled ? (
        <Notice tone="warn" title="Saved provider keys are turned off on this gateway.">
          Its operator turns them on with <code>byok.enabled</code> in the configuration. Requests can still bring a key of their own as <code>upstream_key</code>.
        </Notice>
      ) : <ErrorNotice error={list.error} />}
      {!list.data && list.loading && <Loading />}
      {list.data && (
        <ul class="byok-list">
          {list.data.data.map((p) => {
            const t = tests[p.provider];
            return (
              <li key={p.provider} class="card">
                <header class="card-head">
                  <h2 id={`byok-${p.provider}`}>{p.name}</h2>
                  <span class={p.saved ? 'badge badge-ok' : 'badge'}>{p.saved ? 'Key saved' : 'No key'}</span>
                </header>
                <dl class="facts">
                  <dt>Provider id</dt><dd><code>{p.provider}</code></dd>
                  <dt>Runs in</dt><dd>{residency(p.residency)}</dd>
                  {p.saved && (
                    <>
                      <dt>Key</dt><dd><code>{p.saved.key}</code>{p.saved.label && <> · {p.saved.label}</>}</dd>
                      <dt>Used for</dt>
                      <dd>{p.saved.always_use ? <>every call to {p.name}, catalog models included</> : <>requests for <code>{p.provider}/model-id</code></>}</dd>
                      <dt>Models</dt><dd>{num(p.saved.models)}</dd>
                      <dt>Last checked</dt><dd>{when(p.saved.verified_at)}</dd>
                    </>
                  )}
                </dl>
                {t && !t.busy && <TestOutcome name={p.name} state={t} />}
                <div class="actions">
                  {p.saved ? (
                    <>
                      <button type="button" class="btn btn-small" disabled={t?.busy} onClick={() => test(p)} aria-label={`Test the ${p.name} key`}>
                        {t?.busy ? 'Testing…' : 'Test'}
                      </button>
                      <button type="button" class="btn btn-small" aria-expanded={models === p.provider} aria-controls={`models-${p.provider}`}
                        onClick={() => setModels(models === p.provider ? null : p.provider)} aria-label={`${models === p.provider ? 'Hide models' : 'Models'} of the ${p.name} key`}>
                        {models === p.provider ? 'Hide models' : 'Models'}
                      </button>
                      <button type="button" class="btn btn-small" onClick={() => { setFlash(''); setEditing(p); }} aria-label={`Replace the ${p.name} key`}>Replace</button>
                      <button type="button" class="btn btn-small btn-danger" onClick={() => { setRemoveError(null); setRemoving(p); }}
                        aria-label={`Remove the ${p.name} key`}>Remove</button>
                    </>
                  ) : (
                    <button type="button" class="btn btn-small btn-primary" onClick={() => { setFlash(''); setEditing(p); }} aria-label={`Add key for ${p.name}`}>Add key</button>
                  )}
                </div>
                {models === p.provider && p.saved && <DiscoveredList id={`models-${p.provider}`} provider={p} />}
              </li>
            );
          })}
        </ul>
      )}
      <KeyDialog provider={editing} onClose={() => setEditing(null)} onSaved={saved} />
      <Confirm open={removing !== null} title={`Remove the ${removing?.name ?? ''} key?`} confirmLabel="Remove key" danger busy={removeBusy}
        onConfirm={remove} onCancel={() => setRemoving(null)}>
        <p>
          Calls to {removing?.name} go back to the gateway's own key, if it has one, and <code>{removing?.provider}/model-id</code> requests
          need an <code>upstream_key</code> again. The key cannot be shown or restored: you would paste it again.
        </p>
        <ErrorNotice error={removeError} />
      </Confirm>
    </Page>
  );
}

/** A key test's result, in words: ok, rejected or unreachable. */
function TestOutcome(p: { name: string; state: TestState }) {
  const s = p.state;
  if (s.busy) return null;
  if ('error' in s) return <ErrorNotice error={s.error} />;
  const r = s.result;
  if (r.result === 'ok') {
    return <Notice tone="ok">The key works: {p.name} accepted it and listed {num(r.models)} model{r.models === 1 ? '' : 's'} ({when(r.checked_at)}).</Notice>;
  }
  if (r.result === 'rejected') {
    return <Notice tone="error">{p.name} refused the key ({r.message}). Replace it with a working key; until then its requests fail.</Notice>;
  }
  return <Notice tone="warn">{p.name} could not be reached to check the key ({r.message}). The key is kept; test again later.</Notice>;
}
