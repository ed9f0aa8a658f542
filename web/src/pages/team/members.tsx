import { useState } from 'preact/hooks';
import { api, seg } from '../../lib/api';
import { day } from '../../lib/format';
import { useSession } from '../../lib/session';
import { Section } from '../../components/page';
import { ErrorNotice, Notice } from '../../components/notice';
import { Confirm, Dialog } from '../../components/dialog';
import { Select } from '../../components/field';
import { useAction } from './use-action';
import { ROLE_HELP, roleLabel, type MemberItem, type RoleName } from './types';

const ROLE_BADGE: Record<string, string> = { owner: 'badge badge-ok', admin: 'badge badge-warn', member: 'badge' };

/**
 * The active org's members. Owners change roles (PATCH /me/members/:id is owner-only); admins
 * remove members (owners only by owners); anyone can leave a team org except its last owner.
 */
export function Members(p: { members: MemberItem[]; personal: boolean; onChanged: () => Promise<void>; onLeft: (orgName: string) => void }) {
  const { me, can, refresh } = useSession();
  const [roleOf, setRoleOf] = useState<MemberItem | null>(null);
  const [removing, setRemoving] = useState<MemberItem | null>(null);
  const [done, setDone] = useState('');
  const action = useAction();

  // The last owner cannot leave (last_owner): they make someone else an owner first.
  const lastOwner = (m: MemberItem) => m.role === 'owner' && p.members.filter((x) => x.role === 'owner').length === 1;
  const mayRemove = (m: MemberItem) => m.id !== me.id && can('admin') && (m.role !== 'owner' || can('owner'));
  const remove = async () => {
    const m = removing!;
    const self = m.id === me.id;
    const orgName = me.org.name;
    const ok = await action.run(() => api.del(`/me/members/${seg(m.id)}`));
    if (!ok) return;
    setRemoving(null);
    if (self) {
      // The session falls back to the personal org; read /me again to show it.
      await refresh();
      p.onLeft(orgName);
    } else {
      await p.onChanged();
      setDone(`${m.email} was removed from ${orgName}.`);
    }
  };

  return (
    <Section title="Members">
      {p.personal && (
        <Notice tone="info">
          This is your personal organisation: it has only you, and nobody can be invited to it. To work with others,
          create a team organisation below, switch to it and invite them there.
        </Notice>
      )}
      {done && <Notice tone="ok">{done}</Notice>}
      <div class="table-wrap">
        <table class="team-table">
          <caption class="sr-only">Members of {me.org.name}</caption>
          <thead><tr><th scope="col">Member</th><th scope="col">Role</th><th scope="col">Joined</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {p.members.map((m) => (
              <tr key={m.id}>
                <td>
                  <div class="team-person">
                    <span class="team-person-name">{m.name ?? m.email}{m.id === me.id && <span class="muted"> (you)</span>}</span>
                    {m.name && <span class="muted team-person-email">{m.email}</span>}
                  </div>
                </td>
                <td><span class={ROLE_BADGE[m.role] ?? 'badge'}>{roleLabel(m.role)}</span></td>
                <td data-label="Joined">{day(m.joined_at)}</td>
                <td>
                  <div class="team-row-actions">
                    {can('owner') && !p.personal && (
                      <button type="button" class="btn btn-small" aria-label={`Change role of ${m.email}`} onClick={() => setRoleOf(m)}>Change role</button>
                    )}
                    {mayRemove(m) && (
                      <button type="button" class="btn btn-small btn-danger" aria-label={`Remove ${m.email}`} onClick={() => { action.clear(); setRemoving(m); }}>Remove</button>
                    )}
                    {m.id === me.id && !p.personal && !lastOwner(m) && (
                      <button type="button" class="btn btn-small" onClick={() => { action.clear(); setRemoving(m); }}>Leave</button>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Dialog open={roleOf !== null} title={`Role of ${roleOf?.email ?? ''}`} onClose={() => setRoleOf(null)}>
        {roleOf && <RoleForm key={roleOf.id} member={roleOf} onClose={() => setRoleOf(null)} onSaved={async (role) => {
          setRoleOf(null);
          // Your own role changed: what the page offers changes with it.
          if (roleOf.id === me.id) await refresh();
          await p.onChanged();
          setDone(`${roleOf.email} is now ${role === 'member' ? 'a member' : `an ${role}`} of ${me.org.name}.`);
        }} />}
      </Dialog>
      <Confirm open={removing !== null} danger busy={action.busy}
        title={removing?.id === me.id ? `Leave ${me.org.name}?` : `Remove ${removing?.email ?? ''}?`}
        confirmLabel={removing?.id === me.id ? 'Leave the organisation' : 'Remove member'}
        onCancel={() => setRemoving(null)} onConfirm={remove}>
        {removing?.id === me.id
          ? <p>You lose access to {me.org.name}’s keys, usage and settings, and go back to your personal organisation. Someone will have to invite you again to return.</p>
          : <p>{removing?.email} loses access to {me.org.name} at once. Keys they created stay with the organisation.</p>}
        <ErrorNotice error={action.error} />
      </Confirm>
    </Section>
  );
}

/** The owner's role picker for one member; the last owner's demotion is refused in words. */
function RoleForm(p: { member: MemberItem; onClose: () => void; onSaved: (role: string) => void }) {
  const [role, setRole] = useState(p.member.role);
  const action = useAction();
  const save = async (e: Event) => {
    e.preventDefault();
    if (await action.run(() => api.patch(`/me/members/${seg(p.member.id)}`, { role }))) p.onSaved(role);
  };
  return (
    <form class="form" onSubmit={save}>
      <Select label="Role" value={role} onChange={setRole}
        options={(['member', 'admin', 'owner'] as RoleName[]).map((r) => ({ value: r, label: roleLabel(r) }))}
        hint={ROLE_HELP[role as RoleName]} />
      <ErrorNotice error={action.error} />
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={p.onClose}>Cancel</button>
        <button type="submit" class="btn btn-primary" disabled={action.busy || role === p.member.role}>Save role</button>
      </div>
    </form>
  );
}
