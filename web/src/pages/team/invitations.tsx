import { useState } from 'preact/hooks';
import { api, seg } from '../../lib/api';
import { when } from '../../lib/format';
import { useSession } from '../../lib/session';
import { Section } from '../../components/page';
import { Empty, ErrorNotice, Notice } from '../../components/notice';
import { Confirm } from '../../components/dialog';
import { Field, Select } from '../../components/field';
import { useAction } from './use-action';
import { ROLE_HELP, roleLabel, type MyInvitation, type OrgInvitation, type RoleName } from './types';

/**
 * The active org's pending invitations and, for owners and admins of a team org, the form that
 * sends one (POST /me/members). Members see who is invited but no buttons.
 */
export function OrgInvitations(p: { invitations: OrgInvitation[]; personal: boolean; onChanged: () => Promise<void> }) {
  const { me, can } = useSession();
  const [revoking, setRevoking] = useState<OrgInvitation | null>(null);
  const [done, setDone] = useState('');
  const action = useAction();
  const revoke = async () => {
    const inv = revoking!;
    if (!(await action.run(() => api.del(`/me/invitations/${seg(inv.id)}`)))) return;
    setRevoking(null);
    await p.onChanged();
    setDone(`The invitation to ${inv.email} was revoked.`);
  };
  if (p.personal) return null;
  return (
    <Section title="Invitations">
      {can('admin') && <InviteForm onSent={() => { setDone(''); void p.onChanged(); }} />}
      {done && <Notice tone="ok">{done}</Notice>}
      <h3 id="pending-invitations">Pending invitations</h3>
      {p.invitations.length === 0 ? <Empty>No invitations are waiting for an answer.</Empty> : (
        <div class="table-wrap">
          <table class="team-table" aria-labelledby="pending-invitations">
            <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Invited by</th><th scope="col">Sent</th>{can('admin') && <th scope="col"><span class="sr-only">Actions</span></th>}</tr></thead>
            <tbody>
              {p.invitations.map((i) => (
                <tr key={i.id}>
                  <td class="team-break">{i.email}</td>
                  <td data-label="Role">{roleLabel(i.role)}</td>
                  <td class="team-break" data-label="Invited by">{i.invited_by}</td>
                  <td data-label="Sent">{when(i.created_at)} IST</td>
                  {can('admin') && (
                    <td><button type="button" class="btn btn-small" aria-label={`Revoke the invitation to ${i.email}`} onClick={() => { action.clear(); setRevoking(i); }}>Revoke</button></td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Confirm open={revoking !== null} danger busy={action.busy} title={`Revoke the invitation to ${revoking?.email ?? ''}?`}
        confirmLabel="Revoke invitation" onCancel={() => setRevoking(null)} onConfirm={revoke}>
        <p>They will no longer be able to join {me.org.name} with it. You can invite them again later.</p>
        <ErrorNotice error={action.error} />
      </Confirm>
    </Section>
  );
}

function InviteForm(p: { onSent: () => void }) {
  const { me, can } = useSession();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<RoleName>('member');
  const [sent, setSent] = useState('');
  const action = useAction();
  const roles: RoleName[] = can('owner') ? ['member', 'admin', 'owner'] : ['member', 'admin'];
  const send = async (e: Event) => {
    e.preventDefault();
    setSent('');
    const to = email.trim();
    if (await action.run(() => api.post('/me/members', { email: to, role }))) {
      setSent(to);
      setEmail('');
      p.onSent();
    }
  };
  return (
    <form class="form team-invite" onSubmit={send} aria-labelledby="invite-title">
      <h3 id="invite-title">Invite someone to {me.org.name}</h3>
      <div class="form-row">
        <Field label="Email address" type="email" value={email} onInput={setEmail} required autoComplete="off" maxLength={254} invalid={action.error !== null} />
        <Select label="Role" value={role} onChange={(v) => setRole(v as RoleName)} options={roles.map((r) => ({ value: r, label: roleLabel(r) }))} />
        <button type="submit" class="btn btn-primary" disabled={action.busy}>Send invitation</button>
      </div>
      <small class="hint">{ROLE_HELP[role]}</small>
      <ErrorNotice error={action.error} />
      {sent && <Notice tone="ok">Invitation sent to {sent}. They see it on their Team page when they sign in with that address.</Notice>}
    </form>
  );
}

/** Invitations addressed to the signed-in person, from any org: accept or decline. */
export function MyInvitations(p: { invitations: MyInvitation[]; onChanged: () => Promise<void>; onSwitch: (orgId: string) => void }) {
  const { refresh } = useSession();
  const [joined, setJoined] = useState<{ id: string; name: string } | null>(null);
  const [declined, setDeclined] = useState('');
  const action = useAction();
  const decide = async (inv: MyInvitation, how: 'accept' | 'decline') => {
    setJoined(null);
    setDeclined('');
    if (!(await action.run(() => api.post(`/me/invitations/${seg(inv.id)}/${how}`)))) return;
    // The header's organisation switcher and invitation banner read again, and this list.
    await refresh();
    await p.onChanged();
    if (how === 'accept') setJoined({ id: inv.org_id, name: inv.org_name });
    else setDeclined(inv.org_name);
  };
  return (
    <Section title="Your invitations" id="invitations">
      <ErrorNotice error={action.error} />
      {joined && (
        <Notice tone="ok">
          You joined {joined.name}.{' '}
          <button type="button" class="btn btn-small btn-primary" onClick={() => p.onSwitch(joined.id)}>Switch to {joined.name}</button>
        </Notice>
      )}
      {declined && <Notice tone="info">You declined the invitation to {declined}.</Notice>}
      {p.invitations.length === 0 ? <Empty>No invitations are waiting for you.</Empty> : (
        <ul class="team-invites">
          {p.invitations.map((i) => (
            <li key={i.id} class="team-invite-item">
              <div>
                <strong>{i.org_name}</strong> invites you as {i.role === 'member' ? 'a member' : `an ${i.role}`}.
                <div class="muted">From {i.invited_by}, {when(i.created_at)} IST</div>
              </div>
              <div class="team-row-actions">
                <button type="button" class="btn btn-primary" disabled={action.busy} aria-label={`Accept the invitation to ${i.org_name}`} onClick={() => decide(i, 'accept')}>Accept</button>
                <button type="button" class="btn" disabled={action.busy} aria-label={`Decline the invitation to ${i.org_name}`} onClick={() => decide(i, 'decline')}>Decline</button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
