import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../lib/api';
import { useSession } from '../lib/session';
import { useData } from '../lib/use-data';
import { Page } from '../components/page';
import { ErrorNotice, Loading, Notice } from '../components/notice';
import { Members } from './team/members';
import { MyInvitations, OrgInvitations } from './team/invitations';
import { Workspaces } from './team/workspaces';
import { Orgs } from './team/orgs';
import { Settings } from './team/settings';
import { useAction } from './team/use-action';
import type { MembersDoc, MyInvitation, OrgItem, WorkspaceItem } from './team/types';
import './team.css';

/**
 * Teams (spec 4.11) and account settings: invitations addressed to you, the active org's members,
 * its invitations and workspaces, your orgs (switch, create a team) and your name and the org's.
 * Buttons follow the route roles: invite, revoke, remove and workspace writes need admin; role
 * changes and the org's name need owner.
 */
export function Team(_p: { params: Record<string, string> }) {
  const { me, refresh } = useSession();
  const members = useData(() => api.get<MembersDoc>('/me/members'), [me.org.id]);
  const workspaces = useData(() => api.get<{ data: WorkspaceItem[] }>('/me/workspaces'), [me.org.id]);
  const orgs = useData(() => api.get<{ data: OrgItem[] }>('/me/orgs'), [me.org.id]);
  const mine = useData(() => api.get<{ data: MyInvitation[] }>('/me/invitations'), []);
  const [news, setNews] = useState('');
  const switcher = useAction();
  const wantsInvitations = location.hash === '#invitations';

  // /team#invitations (the shell's banner) lands on the section once it is on the page.
  useEffect(() => {
    if (wantsInvitations && mine.data) document.getElementById('invitations')?.scrollIntoView({ block: 'start' });
  }, [mine.data !== null]);

  const switchTo = async (orgId: string) => {
    const name = orgs.data?.data.find((o) => o.id === orgId)?.name;
    setNews('');
    if (await switcher.run(async () => {
      await api.post('/me/orgs/switch', { org_id: orgId });
      await refresh();
    })) {
      setNews(`You are now working in ${name ?? 'the organisation'}.`);
      scrollTo(0, 0);
    }
  };
  const orgsChanged = async () => {
    await orgs.reload();
    // The header's switcher reads its list on refresh().
    await refresh();
  };

  const personal = me.org.personal;
  const invitationsForMe = mine.data?.data ?? [];
  // Once shown, the section stays for this visit: it carries the answer to the last accept or decline.
  const shownMine = useRef(false);
  if (invitationsForMe.length > 0 || wantsInvitations) shownMine.current = true;
  return (
    <Page title="Team" lead={<>Organisation <strong>{me.org.name}</strong>{personal ? ' (personal)' : ''}: your role is {me.role}.</>}>
      <div class="page team-page">
        {news && <Notice tone="ok">{news}</Notice>}
        <ErrorNotice error={switcher.error} />
        <ErrorNotice error={mine.error} />
        {shownMine.current && (
          <MyInvitations invitations={invitationsForMe} onChanged={async () => { await Promise.all([mine.reload(), orgs.reload()]); }} onSwitch={switchTo} />
        )}
        <div key={me.org.id} class="page">
          <ErrorNotice error={members.error} />
          {!members.data && members.loading && <Loading label="Loading members…" />}
          {members.data && (
            <>
              <Members members={members.data.members} personal={personal} onChanged={members.reload}
                onLeft={(name) => setNews(`You left ${name} and are back in your personal organisation.`)} />
              <OrgInvitations invitations={members.data.invitations} personal={personal} onChanged={members.reload} />
            </>
          )}
          <ErrorNotice error={workspaces.error} />
          {workspaces.data && <Workspaces list={workspaces.data.data} onChanged={workspaces.reload} />}
          <ErrorNotice error={orgs.error} />
          {orgs.data && <Orgs orgs={orgs.data.data} busy={switcher.busy} onSwitch={switchTo} onCreated={orgsChanged} />}
          {/* Names show in the members and organisations tables too. */}
          <Settings onSaved={async () => { await Promise.all([members.reload(), orgs.reload()]); }} />
        </div>
      </div>
    </Page>
  );
}
