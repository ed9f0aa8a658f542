import { useState } from 'preact/hooks';
import { api, seg } from '../lib/api';
import { when } from '../lib/format';
import { useSession } from '../lib/session';
import { useData } from '../lib/use-data';
import { Page, Section } from '../components/page';
import { Empty, ErrorNotice, Loading, Notice } from '../components/notice';
import { Confirm } from '../components/dialog';
import { EndpointForm } from './routing/endpoint-form';
import { Report, StatusBadge } from './routing/compliance-report';
import type { Endpoint } from './routing/types';
import './routing.css';

/**
 * Custom endpoints (spec 4.9): the org's own OpenAI-compatible servers, compliance-tested before
 * the gateway calls them. Everyone reads the list and may test a config; owners and admins
 * register, retest and remove.
 */
export function Endpoints() {
  const { me, can } = useSession();
  const admin = can('admin');
  const list = useData(() => api.get<{ data: Endpoint[] }>('/me/endpoints'), [me.org.id]);
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const [retesting, setRetesting] = useState<string | null>(null);
  const [actionError, setActionError] = useState<Error | null>(null);
  const [removing, setRemoving] = useState<Endpoint | null>(null);
  const [removeBusy, setRemoveBusy] = useState(false);
  const [removeError, setRemoveError] = useState<Error | null>(null);
  const [flash, setFlash] = useState('');

  const retest = async (ep: Endpoint) => {
    setRetesting(ep.id);
    setActionError(null);
    setFlash('');
    try {
      const after = await api.post<Endpoint>(`/me/endpoints/${seg(ep.id)}/retest`);
      await list.reload();
      setOpen((o) => ({ ...o, [ep.id]: true }));
      setFlash(`Tested ${ep.name} again: ${after.compliance.status === 'compliant' ? 'every check passed' : 'see its report'}.`);
    } catch (e) {
      setActionError(e as Error);
    } finally {
      setRetesting(null);
    }
  };
  const remove = async () => {
    if (!removing) return;
    setRemoveBusy(true);
    setRemoveError(null);
    try {
      await api.del(`/me/endpoints/${seg(removing.id)}`);
      await list.reload();
      setFlash(`Removed ${removing.name}: requests for custom/${removing.name}/… stop at once.`);
      setRemoving(null);
    } catch (e) {
      setRemoveError(e as Error);
    } finally {
      setRemoveBusy(false);
    }
  };

  const eps = list.data?.data ?? [];
  return (
    <Page title="Custom endpoints"
      lead={<>Your own OpenAI-compatible servers, called as <code>custom/&lt;name&gt;/&lt;model&gt;</code> on your own account (not debited). The gateway tests each one before it calls it.</>}>
      {flash && <Notice tone="ok">{flash}</Notice>}
      <ErrorNotice error={actionError} />
      <Section title="Registered endpoints">
        <ErrorNotice error={list.error} />
        {!list.data && list.loading && <Loading />}
        {list.data && eps.length === 0 && <Empty>No endpoints registered.{admin ? ' Register one below.' : ''}</Empty>}
        {eps.length > 0 && (
          <ul class="endpoint-list">
            {eps.map((ep) => (
              <li key={ep.id} class="chain-item">
                <div class="chain-item-head">
                  <h3>{ep.name}</h3>
                  <StatusBadge status={ep.compliance.status} />
                  <div class="actions">
                    <button type="button" class="btn btn-small" aria-expanded={!!open[ep.id]} aria-controls={`report-${ep.id}`}
                      onClick={() => setOpen((o) => ({ ...o, [ep.id]: !o[ep.id] }))} aria-label={`${open[ep.id] ? 'Hide' : 'Show'} report of ${ep.name}`}>
                      {open[ep.id] ? 'Hide report' : 'Show report'}
                    </button>
                    {admin && (
                      <>
                        <button type="button" class="btn btn-small" disabled={retesting === ep.id} onClick={() => retest(ep)} aria-label={`Retest ${ep.name}`}>
                          {retesting === ep.id ? 'Testing…' : 'Retest'}
                        </button>
                        <button type="button" class="btn btn-small btn-danger" onClick={() => { setRemoveError(null); setRemoving(ep); }} aria-label={`Remove ${ep.name}`}>Remove</button>
                      </>
                    )}
                  </div>
                </div>
                <dl class="facts">
                  <dt>Base URL</dt><dd><code>{ep.base_url}</code></dd>
                  <dt>Key</dt><dd>{ep.key ? <code>{ep.key}</code> : 'none'}</dd>
                  <dt>Last tested</dt><dd>{when(ep.tested_at)}</dd>
                </dl>
                {open[ep.id] && (
                  <div id={`report-${ep.id}`}>
                    <Report report={ep.compliance} title={`Compliance report of ${ep.name}`} callAs={`custom/${ep.name}/`} />
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title={admin ? 'Register an endpoint' : 'Test an endpoint'}>
        {!admin && <p class="muted">Owners and admins of {me.org.name} register endpoints; you can test one without saving it.</p>}
        <EndpointForm canSave={admin} onRegistered={() => { setFlash(''); void list.reload(); }} />
      </Section>
      <Confirm open={removing !== null} title={`Remove ${removing?.name ?? ''}?`} confirmLabel="Remove endpoint" danger busy={removeBusy}
        onConfirm={remove} onCancel={() => setRemoving(null)}>
        <p>Requests for <code>custom/{removing?.name}/…</code> stop at once, and its saved key is deleted.</p>
        <ErrorNotice error={removeError} />
      </Confirm>
    </Page>
  );
}
