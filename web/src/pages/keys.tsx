import { useState } from 'preact/hooks';
import { api, seg } from '../lib/api';
import { money, num, when } from '../lib/format';
import { navigate, useLocation, withQuery } from '../lib/router';
import { useSession } from '../lib/session';
import { useData } from '../lib/use-data';
import { Page, Section } from '../components/page';
import { Empty, ErrorNotice, Loading, Notice } from '../components/notice';
import { Check } from '../components/field';
import { Confirm } from '../components/dialog';
import { CreateKey } from './keys/create-key';
import { EditLimits } from './keys/edit-limits';
import type { KeyItem } from './keys/key-types';
import './keys.css';

const STATUS: Record<string, { label: string; badge: string }> = {
  active: { label: 'Active', badge: 'badge-ok' },
  revoked: { label: 'Revoked', badge: 'badge-danger' },
  expired: { label: 'Expired', badge: 'badge-warn' },
};

/**
 * The org's API keys (GET /me/keys): create (anyone in the org), edit limits and revoke
 * (owner/admin, as the routes require). /keys?new=1 opens the create dialog, the overview's link.
 */
export function Keys() {
  const { me, can } = useSession();
  const loc = useLocation();
  const keys = useData(() => api.get<{ data: KeyItem[] }>('/me/keys'), [me.org.id]);
  const [showInactive, setShowInactive] = useState(false);
  const [editing, setEditing] = useState<KeyItem | null>(null);
  const [revoking, setRevoking] = useState<KeyItem | null>(null);
  const [revokeBusy, setRevokeBusy] = useState(false);
  const [revokeError, setRevokeError] = useState('');
  const [said, setSaid] = useState('');
  const manage = can('admin');
  const trial = me.org.tier === 'trial';
  const creating = loc.query.get('new') === '1';

  const all = keys.data?.data ?? [];
  const inactive = all.filter((k) => k.status !== 'active').length;
  const shown = showInactive ? all : all.filter((k) => k.status === 'active');
  const ephemeral = shown.some((k) => k.scope === 'inference');

  const revoke = async () => {
    if (!revoking) return;
    setRevokeBusy(true);
    setRevokeError('');
    try {
      await api.del(`/me/keys/${seg(revoking.id)}`);
      await keys.reload();
      setSaid(`Key “${revoking.name}” is revoked. Requests with it are refused within a minute.`);
      setRevoking(null);
    } catch (e) {
      setRevokeError((e as Error).message);
    } finally {
      setRevokeBusy(false);
    }
  };

  return (
    <Page title="API keys"
      lead={trial
        ? <>Keys of <strong>{me.org.name}</strong> are trial keys: free, 60 requests a minute and 200 a day. After the first top-up, new keys are standard and billed per request.</>
        : <>Keys of <strong>{me.org.name}</strong> are billed per request from its credit ({money(me.org.balance_inr)}).</>}
      actions={<button type="button" class="btn btn-primary" onClick={() => navigate(withQuery(loc, { new: '1' }), { replace: true })}>Create a key</button>}>
      {said && <Notice tone="ok">{said}</Notice>}
      <Section title="Keys" actions={inactive > 0 && (
        <Check label={`Show revoked and expired keys (${inactive})`} checked={showInactive} onChange={setShowInactive} />
      )}>
        <ErrorNotice error={keys.error} />
        {!keys.data && keys.loading && <Loading />}
        {keys.data && shown.length === 0 && (
          <Empty>{all.length === 0 ? 'No keys yet. Create one to call the API.' : 'No active keys. Create one, or show the revoked and expired ones.'}</Empty>
        )}
        {shown.length > 0 && (
          <div class="table-wrap keys-wrap" tabIndex={0} role="region" aria-label="API keys table, scrolls sideways">
            <table class="keys-table">
              <caption class="sr-only">API keys of {me.org.name}{showInactive ? ', revoked and expired included' : ''}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Tier</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">Per minute</th>
                  <th scope="col" class="num">Per day</th>
                  <th scope="col" class="num">Monthly budget</th>
                  <th scope="col" class="num">Spent this month</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  {manage && <th scope="col"><span class="sr-only">Actions</span></th>}
                </tr>
              </thead>
              <tbody>
                {shown.map((k) => <KeyRow key={k.id} k={k} manage={manage} onEdit={() => setEditing(k)} onRevoke={() => { setRevokeError(''); setRevoking(k); }} />)}
              </tbody>
            </table>
          </div>
        )}
        {ephemeral && (
          <p class="hint keys-note">
            <span class="badge badge-ephemeral">Ephemeral</span> keys were minted through the MCP server by a full key: inference only,
            they live at most 168 hours and make at most 1,000 requests a day.
          </p>
        )}
        {keys.data && (
          <p class="hint keys-note">
            Times are IST. Limit changes and revocations reach every request within a minute. {!manage && 'Only owners and admins can change limits or revoke keys.'}
          </p>
        )}
      </Section>

      <CreateKey open={creating} trial={trial} onClose={() => navigate(withQuery(loc, { new: null }), { replace: true })} onCreated={() => void keys.reload()} />
      {manage && (
        <>
          <EditLimits item={editing} onClose={() => setEditing(null)} onSaved={async () => {
            await keys.reload();
            setSaid(`Limits of “${editing?.name}” saved.`);
            setEditing(null);
          }} />
          <Confirm open={revoking !== null} title={revoking ? `Revoke “${revoking.name}”?` : 'Revoke the key?'} confirmLabel="Revoke key" danger
            busy={revokeBusy} onConfirm={revoke} onCancel={() => setRevoking(null)}>
            {revoking && (
              <p>
                Every app using <code>{revoking.prefix}…</code> is refused with “invalid API key” within a minute.
                Revoking is permanent: the key cannot be restored, only replaced by a new one.
              </p>
            )}
            {revokeError && <p role="alert" class="error-text">{revokeError}</p>}
          </Confirm>
        </>
      )}
    </Page>
  );
}

function KeyRow(p: { k: KeyItem; manage: boolean; onEdit: () => void; onRevoke: () => void }) {
  const { k } = p;
  const status = STATUS[k.status] ?? { label: k.status, badge: '' };
  const active = k.status === 'active';
  return (
    <tr class={active ? undefined : 'key-inactive'}>
      <th scope="row" class="key-name">
        <span class="key-title">{k.name}</span>
        {k.scope === 'inference' && <> <span class="badge badge-ephemeral">Ephemeral</span></>}
        <br /><code class="key-prefix">{k.prefix}…</code>
      </th>
      <td>{k.tier === 'trial' ? 'Trial' : k.tier === 'standard' ? 'Standard' : k.tier}</td>
      <td><span class={`badge ${status.badge}`}>{status.label}</span></td>
      <td class="num">{k.rpm_limit === null ? 'No limit' : num(k.rpm_limit)}</td>
      <td class="num">{k.daily_limit === null ? 'No limit' : num(k.daily_limit)}</td>
      <td class="num">{k.tier === 'trial' ? 'Free' : k.monthly_budget === null ? 'None' : money(k.monthly_budget)}</td>
      <td class="num">{money(k.spent_month)}</td>
      <td class="key-date">{k.last_used_at ? when(k.last_used_at) : 'Never'}</td>
      <td class="key-date">{k.expires_at ? when(k.expires_at) : 'Never'}</td>
      {p.manage && (
        <td class="nowrap">
          {active && (
            <div class="row-actions">
              <button type="button" class="btn btn-small" onClick={p.onEdit} aria-label={`Edit limits of ${k.name}`}>Edit limits</button>
              <button type="button" class="btn btn-small btn-danger-outline" onClick={p.onRevoke} aria-label={`Revoke ${k.name}`}>Revoke</button>
            </div>
          )}
        </td>
      )}
    </tr>
  );
}
