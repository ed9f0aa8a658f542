import { useMemo, useState } from 'preact/hooks';
import { api, seg } from '../lib/api';
import { navigate, useLocation, withQuery } from '../lib/router';
import { useSession } from '../lib/session';
import { useData } from '../lib/use-data';
import { day, num } from '../lib/format';
import { Page, Section } from '../components/page';
import { Empty, ErrorNotice, Loading } from '../components/notice';
import { CollectionForm } from './collections/collection-form';
import type { OrgCollection, PublicCollection } from './collections/types';
import { catalogModels } from '../lib/catalog';
import './collections.css';
import { ScrollTable } from './collections/scroll-table';

/** The public registry and the active org's own collections; owners and admins create them here. */
export function Collections(_p: { params: Record<string, string> }) {
  const { me, can } = useSession();
  const loc = useLocation();
  const creating = loc.query.get('new') === '1' && can('admin');
  const own = useData(() => api.get<{ data: OrgCollection[] }>('/me/collections'), [me.org.id]);
  const registry = useData(() => api.get<{ data: PublicCollection[] }>('/v1/collections?limit=100'), []);
  const models = useData(() => (creating ? catalogModels() : Promise.resolve(null)), [creating]);

  return (
    <Page title="Collections" lead="Named routing chains: keep your own, publish them to the registry, or start from another organisation's."
      actions={can('admin') && !creating && <a class="btn btn-primary" href={withQuery(loc, { new: '1' })}>New collection</a>}>
      {creating && (
        <Section title="New collection">
          <ErrorNotice error={models.error} />
          {!models.data && models.loading && <Loading label="Loading the models…" />}
          {models.data && (
            <CollectionForm editing={null} models={models.data}
              onSaved={(c) => navigate(`/collections/${seg(c.slug)}?created=1`)} onCancel={() => navigate(withQuery(loc, { new: null }), { replace: true })} />
          )}
        </Section>
      )}
      <Section title={`${me.org.name}'s collections`} id="own-collections">
        <ErrorNotice error={own.error} />
        {!own.data && own.loading && <Loading />}
        {own.data && own.data.data.length === 0 && (
          <Empty>No collections yet. {can('admin') ? 'Create one, or fork one from the registry below.' : 'Fork one from the registry below.'}</Empty>
        )}
        {own.data && own.data.data.length > 0 && <OwnTable list={own.data.data} />}
      </Section>
      <Registry list={registry.data?.data ?? null} error={registry.error} loading={registry.loading} mine={new Set(own.data?.data.map((c) => c.slug) ?? [])} />
    </Page>
  );
}

function OwnTable(p: { list: OrgCollection[] }) {
  return (
    <ScrollTable label="Your organisation's collections">
      <table class="coll-table">
        <caption class="sr-only">Your organisation's collections</caption>
        <thead>
          <tr>
            <th scope="col">Name</th><th scope="col">Model</th><th scope="col" class="num">Steps</th><th scope="col" class="num">Version</th>
            <th scope="col">Status</th><th scope="col" class="num">Stars</th><th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {p.list.map((c) => (
            <tr key={c.id}>
              <td><a href={`/collections/${seg(c.slug)}`}>{c.name}</a></td>
              <td><code>{c.model}</code></td>
              <td class="num">{c.steps.length}</td>
              <td class="num">{c.version}</td>
              <td>
                <div class="coll-badges">
                  <span class={c.public ? 'badge badge-ok' : 'badge'}>{c.public ? 'Public' : 'Private'}</span>
                  {c.forked_from && <span class="badge">Fork</span>}
                  {c.monitored && <span class="badge badge-ok">Monitored</span>}
                </div>
              </td>
              <td class="num">{num(c.stars)}</td>
              <td>{day(c.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

/** Everything public, most starred first, filtered here by name, model, provider or slug as you type. */
function Registry(p: { list: PublicCollection[] | null; error: Error | null; loading: boolean; mine: Set<string> }) {
  const [q, setQ] = useState('');
  const [model, setModel] = useState('');
  const models = useMemo(() => [...new Set((p.list ?? []).map((c) => c.model))].sort(), [p.list]);
  const shown = useMemo(() => {
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    return (p.list ?? []).filter((c) => {
      if (model && c.model !== model) return false;
      const text = `${c.name} ${c.model} ${c.slug} ${c.routes.map((r) => r.provider).join(' ')}`.toLowerCase();
      return words.every((w) => text.includes(w));
    });
  }, [p.list, q, model]);
  return (
    <Section title="Public registry" id="registry">
      <div class="form-row coll-registry-filter" role="search" aria-label="Filter the registry">
        <div class="field">
          <label for="registry-q">Search</label>
          <input id="registry-q" type="search" value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} placeholder="Name, model or provider" />
        </div>
        <div class="field">
          <label for="registry-model">Filter by model</label>
          <select id="registry-model" value={model} onChange={(e) => setModel((e.target as HTMLSelectElement).value)}>
            <option value="">All models</option>
            {models.map((m) => <option key={m} value={m}>{m}</option>)}
          </select>
        </div>
      </div>
      <ErrorNotice error={p.error} />
      {!p.list && p.loading && <Loading />}
      {p.list && (
        <p class="muted" role="status" aria-live="polite">
          {shown.length === p.list.length ? `${p.list.length} public ${p.list.length === 1 ? 'collection' : 'collections'}` : `${shown.length} of ${p.list.length} match`}
        </p>
      )}
      {p.list && p.list.length === 0 && <Empty>Nobody has published a collection yet.</Empty>}
      {shown.length > 0 && (
        <ul class="coll-registry">
          {shown.map((c) => (
            <li key={c.slug} class="coll-registry-item">
              <h3><a href={`/collections/${seg(c.slug)}`}>{c.name}</a></h3>
              <p class="coll-registry-model"><code>{c.model}</code>{p.mine.has(c.slug) && <span class="badge">Yours</span>}</p>
              <p class="coll-registry-route" title="The order requests try">{c.routes.map((r) => r.provider).join(' → ')}</p>
              <p class="muted coll-registry-meta">
                <span aria-hidden="true">★ </span>{num(c.stars)}<span class="sr-only"> {c.stars === 1 ? 'star' : 'stars'}</span> · version {c.version} · updated {day(c.updated_at)}
              </p>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
