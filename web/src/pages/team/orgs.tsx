import { useState } from 'preact/hooks';
import { api } from '../../lib/api';
import { day } from '../../lib/format';
import { Section } from '../../components/page';
import { ErrorNotice, Notice } from '../../components/notice';
import { Field } from '../../components/field';
import { useAction } from './use-action';
import { roleLabel, type OrgItem } from './types';

/**
 * Every org the caller belongs to, a switch to each, and a new team org (POST /me/orgs: anyone
 * may create one, up to the gateway's team_cap). Creating does not switch: the page offers it.
 */
export function Orgs(p: { orgs: OrgItem[]; busy: boolean; onSwitch: (orgId: string) => void; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [created, setCreated] = useState<OrgItem | null>(null);
  const action = useAction();
  const create = async (e: Event) => {
    e.preventDefault();
    setCreated(null);
    let org: OrgItem | null = null;
    if (await action.run(async () => { org = await api.post<OrgItem>('/me/orgs', { name }); })) {
      setName('');
      setCreated(org);
      p.onCreated();
    }
  };
  return (
    <Section title="Your organisations">
      <div class="table-wrap">
        <table class="team-table">
          <caption class="sr-only">Organisations you belong to</caption>
          <thead><tr><th scope="col">Organisation</th><th scope="col">Your role</th><th scope="col">Since</th><th scope="col"><span class="sr-only">Switch</span></th></tr></thead>
          <tbody>
            {p.orgs.map((o) => (
              <tr key={o.id}>
                <td class="team-break">{o.name} {o.personal && <span class="badge">Personal</span>}</td>
                <td data-label="Your role">{roleLabel(o.role)}</td>
                <td data-label="Since">{day(o.created_at)}</td>
                <td>
                  {o.active ? <span class="badge badge-ok">Active</span> : (
                    <button type="button" class="btn btn-small" disabled={p.busy} aria-label={`Switch to ${o.name}`} onClick={() => p.onSwitch(o.id)}>Switch</button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form class="form team-subform" onSubmit={create} aria-labelledby="new-org">
        <h3 id="new-org">Create a team organisation</h3>
        <p class="muted team-intro">A team organisation has its own balance, keys, workspaces and members. You become its owner.</p>
        <div class="form-row">
          <Field label="Team name" value={name} onInput={setName} required maxLength={80} />
          <button type="submit" class="btn btn-primary" disabled={action.busy}>Create team</button>
        </div>
        <ErrorNotice error={action.error} />
        {created && (
          <Notice tone="ok">
            {created.name} is ready and you are its owner.{' '}
            <button type="button" class="btn btn-small btn-primary" disabled={p.busy} onClick={() => p.onSwitch(created.id)}>Switch to {created.name}</button>
          </Notice>
        )}
      </form>
    </Section>
  );
}
