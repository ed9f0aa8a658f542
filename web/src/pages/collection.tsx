import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, seg } from '../lib/api';
import { navigate, useLocation, withQuery } from '../lib/router';
import { useSession } from '../lib/session';
import { useData } from '../lib/use-data';
import { when, num } from '../lib/format';
import { Page, Section } from '../components/page';
import { ErrorNotice, Loading, Notice } from '../components/notice';
import { Confirm } from '../components/dialog';
import { Stat } from '../components/stat';
import { CollectionForm } from './collections/collection-form';
import { Readme } from './collections/readme';
import { Monitoring } from './collections/monitoring';
import { Alerts } from './collections/alerts';
import type { OrgCollection, SeenCollection, Version } from './collections/types';
import { catalogModels } from '../lib/catalog';
import './collections.css';
import { ScrollTable } from './collections/scroll-table';

type Done = { tone: 'ok' | 'info'; text: ComponentChildren } | null;

/**
 * One collection: its steps, README and versions; star, fork and import it; the org's own are
 * also edited, deleted and monitored here.
 */
export function CollectionPage(p: { params: Record<string, string> }) {
  const { me, can } = useSession();
  const loc = useLocation();
  const slug = p.params.slug;
  const c = useData(() => api.get<SeenCollection>(`/me/collections/${seg(slug)}`), [slug, me.org.id]);
  const data = c.data;
  const own = data !== null && data.id !== null;
  const editing = loc.query.get('edit') === '1' && own && can('admin');
  const models = useData(() => (editing ? catalogModels() : Promise.resolve(null)), [editing]);
  const [busy, setBusy] = useState<'' | 'star' | 'fork' | 'import' | 'delete'>('');
  const [ask, setAsk] = useState<'' | 'import' | 'delete'>('');
  const [error, setError] = useState<Error | null>(null);
  const [done, setDone] = useState<Done>(loc.query.get('created') === '1' ? { tone: 'ok', text: 'Collection created.' } : null);

  if (!data) {
    return (
      <Page title="Collection">
        <ErrorNotice error={c.error} />
        {c.loading && <Loading />}
        <p><a href="/collections">Back to collections</a></p>
      </Page>
    );
  }

  const act = async (what: typeof busy, run: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    setDone(null);
    try {
      await run();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy('');
      setAsk('');
    }
  };
  const star = () => act('star', async () => {
    const r = await api.post<{ starred: boolean; stars: number }>(`/me/collections/star/${seg(data.slug)}`);
    c.set({ ...data, starred: r.starred, stars: r.stars });
  });
  const fork = () => act('fork', async () => {
    const copy = await api.post<OrgCollection>(`/me/collections/fork/${seg(data.slug)}`);
    setDone({ tone: 'ok', text: <>Forked into {me.org.name} as a private copy: <a href={`/collections/${seg(copy.slug)}`}>{copy.name}</a>.</> });
  });
  const doImport = () => act('import', async () => {
    const r = await api.post<{ collection: OrgCollection; chain: { model: string; steps: unknown[] } }>(`/me/collections/import/${seg(data.slug)}`);
    const forked = r.collection.slug !== data.slug;
    setDone({
      tone: 'ok', text: (
        <>
          Imported: requests for <code>{r.chain.model}</code> in {me.org.name} now follow these {r.chain.steps.length} {r.chain.steps.length === 1 ? 'step' : 'steps'}.{' '}
          {forked && <>A private copy was forked first: <a href={`/collections/${seg(r.collection.slug)}`}>{r.collection.name}</a>. </>}
          <a href="/routing">See routing</a>
        </>
      ),
    });
  });
  const remove = () => act('delete', async () => {
    await api.del(`/me/collections/${seg(data.id!)}`);
    navigate('/collections');
  });

  const orgItem = (): OrgCollection => ({ ...data, id: data.id!, monitored: data.monitored ?? false });
  const admin = can('admin');

  return (
    <Page title={data.name} lead={<Lead c={data} orgName={me.org.name} />} actions={!editing && (
      <>
        <button type="button" class="btn" aria-pressed={data.starred} disabled={busy !== ''} onClick={star}>
          <span aria-hidden="true">{data.starred ? '★' : '☆'}</span> {data.starred ? 'Starred' : 'Star'}
        </button>
        {!own && <button type="button" class="btn" disabled={busy !== ''} onClick={fork}>{busy === 'fork' ? 'Forking…' : 'Fork'}</button>}
        {admin && <button type="button" class="btn btn-primary" disabled={busy !== ''} onClick={() => setAsk('import')}>Import as routing</button>}
        {admin && own && <a class="btn" href={withQuery(loc, { edit: '1', created: null })}>Edit</a>}
        {admin && own && <button type="button" class="btn btn-danger" disabled={busy !== ''} onClick={() => setAsk('delete')}>Delete</button>}
      </>
    )}>
      <ErrorNotice error={error} />
      {done && <Notice tone={done.tone}>{done.text}</Notice>}
      {editing ? (
        <Section title="Edit collection">
          <ErrorNotice error={models.error} />
          {!models.data && models.loading && <Loading label="Loading the models…" />}
          {models.data && (
            <CollectionForm editing={orgItem()} models={models.data}
              onSaved={async (saved) => {
                navigate(withQuery(loc, { edit: null }), { replace: true });
                await c.reload();
                setDone({ tone: 'ok', text: `Saved as version ${saved.version}.` });
              }}
              onCancel={() => navigate(withQuery(loc, { edit: null }), { replace: true })} />
          )}
        </Section>
      ) : (
        <>
          <div class="stats coll-stats">
            <Stat label="Model" value={<code class="coll-stat-code">{data.model}</code>} />
            <Stat label="Steps" value={data.steps.length} />
            <Stat label="Stars" value={num(data.stars)} note={data.starred ? `${me.org.name} starred it` : undefined} />
            <Stat label="Version" value={data.version} note={`updated ${when(data.updated_at)}`} />
          </div>
          <Section title="Steps">
            <Steps c={data} />
          </Section>
          <Section title="README">
            <Readme source={data.readme_md} label={`README of ${data.name}`} />
          </Section>
          <Section title="Version history">
            <History versions={data.versions} current={data.version} />
          </Section>
          {own && (
            <>
              <Monitoring slug={data.slug} monitored={data.monitored ?? false} canAdmin={admin} onMonitored={(m) => c.set({ ...data, monitored: m })} />
              <Alerts slug={data.slug} canAdmin={admin} />
            </>
          )}
        </>
      )}
      <Confirm open={ask === 'import'} title="Import as routing?" confirmLabel="Import" busy={busy === 'import'} onConfirm={doImport} onCancel={() => setAsk('')}>
        <p>
          Requests for <code>{data.model}</code> in {me.org.name} will try these {data.steps.length} {data.steps.length === 1 ? 'step' : 'steps'} in order,
          replacing any routing chain it has for that model now.
        </p>
        {!own && <p>The collection belongs to another organisation, so a private copy is forked into {me.org.name} first.</p>}
      </Confirm>
      <Confirm open={ask === 'delete'} title={`Delete “${data.name}”?`} confirmLabel="Delete collection" danger busy={busy === 'delete'} onConfirm={remove}
        onCancel={() => setAsk('')}>
        <p>Its versions, stars, monitoring and alerts go with it. Forks other organisations made stay theirs. This cannot be undone.</p>
      </Confirm>
    </Page>
  );
}

function Lead(p: { c: SeenCollection; orgName: string }) {
  const own = p.c.id !== null;
  return (
    <span class="coll-lead">
      <span class={p.c.public ? 'badge badge-ok' : 'badge'}>{p.c.public ? 'Public' : 'Private'}</span>{' '}
      {own ? `${p.orgName}'s collection` : "Another organisation's collection"} · <code>{p.c.slug}</code>
      {p.c.forked_from && <> · forked from <a href={`/collections/${seg(p.c.forked_from)}`}>{p.c.forked_from}</a></>}
    </span>
  );
}

function Steps(p: { c: SeenCollection }) {
  return (
    <>
      <ol class="coll-steps">
        {p.c.steps.map((s, i) => (
          <li key={i}>
            <code>{s.model}</code> {s.provider ? <>on <strong>{s.provider}</strong></> : <span class="muted">on any provider, in catalog order</span>}
          </li>
        ))}
      </ol>
      <ScrollTable label="Routes of the steps">
        <table>
          <caption class="coll-caption">What the steps expand to, in the order requests try them</caption>
          <thead><tr><th scope="col">#</th><th scope="col">Provider</th><th scope="col">Model</th><th scope="col">Upstream model</th><th scope="col">Here</th></tr></thead>
          <tbody>
            {p.c.routes.map((r, i) => (
              <tr key={`${r.provider}:${r.upstream_model}`}>
                <td>{i + 1}</td>
                <td>{r.provider}</td>
                <td><code>{r.model}</code></td>
                <td><code>{r.upstream_model}</code></td>
                <td><span class={r.configured ? 'badge badge-ok' : 'badge badge-warn'}>{r.configured ? 'configured' : 'not configured, skipped'}</span></td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
    </>
  );
}

function History(p: { versions: Version[]; current: number }) {
  return (
    <ScrollTable label="Table of versions">
      <table>
        <caption class="sr-only">Versions, newest first</caption>
        <thead><tr><th scope="col" class="num">Version</th><th scope="col">Saved (IST)</th><th scope="col">Name</th><th scope="col">Model</th><th scope="col">Steps</th></tr></thead>
        <tbody>
          {p.versions.map((v) => (
            <tr key={v.version}>
              <td class="num">{v.version}{v.version === p.current && <> <span class="badge">current</span></>}</td>
              <td>{when(v.created_at)}</td>
              <td>{v.name}</td>
              <td><code>{v.model}</code></td>
              <td>{v.steps.map((s) => (s.provider ? `${s.model === v.model ? '' : s.model + ' on '}${s.provider}` : s.model === v.model ? 'any' : s.model)).join(' → ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
