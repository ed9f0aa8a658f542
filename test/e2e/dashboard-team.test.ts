// The Team page in a real browser against the real gateway: a team org created and switched to,
// an invitation sent in one browser context and accepted in another, roles changed and felt on
// the other side, declined and revoked invitations, removing and leaving, workspaces with ₹
// budgets, the caps in words, profile and org names, the phone layout and both themes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { startGateway, type GatewayProcess } from '../support/gateway-process.js';
import { axeSerious, describeViolations, launchBrowser, shot, signedIn, skipSurvey, themeOf } from '../support/browser.js';

let gw: GatewayProcess;
let browser: Browser;

test.before(async () => {
  // Small caps, so team_cap and member_cap are reached in a few clicks.
  gw = await startGateway({ limits: { publicRpmPerIp: 100_000 }, orgs: { maxTeamOrgsPerUser: 2, maxMembersPerOrg: 4 } });
  browser = await launchBrowser();
});
test.after(async () => {
  await browser?.close();
  await gw?.cleanup();
});

type Session = Awaited<ReturnType<typeof signedIn>>;

/** Signed in, past the survey. */
async function as(email: string, opts: Parameters<typeof signedIn>[3] = {}): Promise<Session> {
  const s = await signedIn(browser, gw, email, opts);
  s.page.setDefaultTimeout(10_000); // a missing control fails its test in seconds, not the file at its timeout
  await skipSurvey(s.page);
  return s;
}

/** The Team page, loaded to its last section. */
async function openTeam(page: Page, how: 'nav' | 'load' = 'load'): Promise<void> {
  if (how === 'nav') await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Team' }).click();
  else await page.goto(gw.url + '/team');
  await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
  await page.getByRole('heading', { name: 'Members' }).waitFor();
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  await page.getByRole('heading', { name: 'Your organisations' }).waitFor();
}

const orgsOf = async (s: Session) => (await (await s.ctx.request.get(gw.url + '/me/orgs')).json()).data as { id: string; name: string; role: string; active: boolean }[];
const meOf = async (s: Session) => (await s.ctx.request.get(gw.url + '/me')).json();
const count = (page: Page, name: string | RegExp) => page.getByRole('button', { name }).count();

async function noViolations(page: Page, what: string): Promise<void> {
  const v = await axeSerious(page);
  assert.is(v.length, 0, `${what}:\n${describeViolations(v)}`);
}

/** Creates a team org from the Team page and switches to it with the offered button. */
async function createTeam(page: Page, name: string): Promise<void> {
  await page.getByLabel('Team name').fill(name);
  await page.getByRole('button', { name: 'Create team' }).click();
  await page.getByText(`${name} is ready and you are its owner.`).waitFor();
  await page.getByRole('status').filter({ hasText: 'is ready' }).getByRole('button', { name: `Switch to ${name}` }).click();
  await page.getByText(`You are now working in ${name}.`).waitFor();
  await page.getByRole('heading', { name: 'Invitations', exact: true }).waitFor();
}

async function invite(page: Page, email: string, role = 'member'): Promise<void> {
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Role', { exact: true }).selectOption(role);
  await page.getByRole('button', { name: 'Send invitation' }).click();
}

/** The admin-only and owner-only controls of the Team page, counted. */
async function adminControls(page: Page) {
  return {
    invite: await count(page, 'Send invitation'),
    roles: await count(page, /^Change role of/),
    remove: await count(page, /^Remove /),
    revoke: await count(page, /^Revoke/),
    editWorkspace: await count(page, /^Edit /),
    archive: await count(page, /^Archive /),
    createWorkspace: await count(page, 'Create workspace'),
    rename: await count(page, 'Rename'),
  };
}
const NONE = { invite: 0, roles: 0, remove: 0, revoke: 0, editWorkspace: 0, archive: 0, createWorkspace: 0, rename: 0 };

let owner: Session;
let b: Session;
let teamId = '';

test('a personal org explains it cannot have members: no invite form, no leave, and the owner sees its settings', async () => {
  const s = await as('solo@example.com');
  await openTeam(s.page, 'nav');
  await s.page.getByText('This is your personal organisation: it has only you').waitFor();
  assert.is(await count(s.page, 'Send invitation'), 0);
  assert.is(await count(s.page, 'Leave'), 0, 'nobody leaves their personal org');
  assert.is(await count(s.page, /^Change role of/), 0, 'a personal org has one owner and no roles to change');
  assert.is(await s.page.getByRole('heading', { name: 'Invitations', exact: true }).count(), 0);
  // Its default workspace, and the owner's settings.
  assert.ok(await s.page.getByRole('cell', { name: /Default/ }).isVisible());
  assert.is(await count(s.page, 'Rename'), 1);
  await noViolations(s.page, 'personal org');
  await shot(s.page, 'dashboard-team-personal');
  assert.equal(s.problems.list, []);
  await s.ctx.close();
});

test('the owner creates a team org from the Team page, is offered the switch, and the header follows', async () => {
  owner = await as('owner@example.com');
  await openTeam(owner.page, 'nav');
  await createTeam(owner.page, 'Acme Team');
  const orgs = await orgsOf(owner);
  const acme = orgs.find((o) => o.name === 'Acme Team')!;
  assert.ok(acme?.active, JSON.stringify(orgs));
  teamId = acme.id;
  // The header's switcher now lists both orgs, with the team selected.
  const switcher = owner.page.getByLabel('Organisation', { exact: true });
  await switcher.waitFor();
  assert.is(await switcher.inputValue(), teamId);
  assert.ok(await owner.page.getByText('Organisation Acme Team: your role is owner.').isVisible());
  assert.equal(owner.problems.list, []);
});

test('invitations refuse a bad address and a second invitation in words; a good one is pending', async () => {
  const page = owner.page;
  await invite(page, 'someone@localhost');
  await page.getByText('That email address does not look right.').waitFor();
  await invite(page, 'b@example.com');
  await page.getByText('Invitation sent to b@example.com.').waitFor();
  const pending = page.getByRole('table', { name: 'Pending invitations' });
  await pending.getByRole('cell', { name: 'b@example.com', exact: true }).waitFor();
  await invite(page, 'B@Example.com');
  await page.getByText('That person already has a pending invitation.').waitFor();
  await invite(page, 'owner@example.com', 'admin');
  await page.getByText('That person is already a member.').waitFor();
  assert.ok(!(await page.locator('body').innerText()).match(/already_invited|already_member|bad_email/), 'no raw codes');
  await noViolations(page, 'team owner');
  await shot(page, 'dashboard-team-owner');
  assert.equal(owner.problems.list, []);
});

test('in a second browser context the invitee sees the banner, lands on the invitation, accepts, switches, and is a member with no admin buttons', async () => {
  b = await as('b@example.com');
  const page = b.page;
  const banner = page.getByRole('status').filter({ hasText: 'You have an invitation to join a team.' });
  await banner.waitFor();
  await banner.getByRole('link', { name: 'See it' }).click();
  await page.waitForURL(gw.url + '/team#invitations');
  const section = page.getByRole('heading', { name: 'Your invitations' });
  await section.waitFor();
  await page.waitForFunction(() => {
    const g = globalThis as any;
    const r = g.document.getElementById('invitations').getBoundingClientRect();
    return r.top >= 0 && r.bottom <= g.innerHeight;
  });
  await page.getByText('Acme Team invites you as a member.').waitFor();
  await noViolations(page, 'invitee');
  await shot(page, 'dashboard-team-invitation');
  await page.getByRole('button', { name: 'Accept the invitation to Acme Team' }).click();
  await page.getByText('You joined Acme Team.').waitFor();

  // The header's switcher learned of the new org; switching goes to the overview of the team.
  const switcher = page.getByLabel('Organisation', { exact: true });
  await switcher.waitFor();
  await switcher.selectOption(teamId);
  await page.waitForURL(gw.url + '/');
  await page.getByText('Organisation Acme Team, signed in as b@example.com (member).').waitFor();
  assert.is(await page.getByText('You have an invitation').count(), 0, 'the banner is gone');

  await openTeam(page, 'nav');
  await page.getByRole('cell', { name: /b@example\.com/ }).first().waitFor();
  await page.getByRole('cell', { name: /owner@example\.com/ }).first().waitFor();
  assert.equal(await adminControls(page), NONE);
  assert.is(await count(page, 'Leave'), 1, 'a member can leave');
  await noViolations(page, 'team member');
  await shot(page, 'dashboard-team-member');
  assert.equal(b.problems.list, []);
});

test('the owner reloads and sees b as a member; makes b an admin, and b sees admin controls after a reload', async () => {
  const page = owner.page;
  await page.reload();
  await openTeam(page);
  const members = page.getByRole('table', { name: 'Members of Acme Team' });
  const row = members.getByRole('row').filter({ hasText: 'b@example.com' });
  await row.waitFor();
  await row.getByText('Member', { exact: true }).waitFor();
  assert.ok(await page.getByText('No invitations are waiting for an answer.').isVisible());

  await page.getByRole('button', { name: 'Change role of b@example.com' }).click();
  const dialog = page.getByRole('dialog', { name: 'Role of b@example.com' });
  await dialog.getByLabel('Role').selectOption('admin');
  await dialog.getByRole('button', { name: 'Save role' }).click();
  await page.getByText('b@example.com is now an admin of Acme Team.').waitFor();
  await row.getByText('Admin', { exact: true }).waitFor();

  await b.page.reload();
  await openTeam(b.page);
  const c = await adminControls(b.page);
  assert.is(c.invite, 1, 'an admin invites');
  assert.is(c.createWorkspace, 1, 'an admin creates workspaces');
  assert.ok(c.editWorkspace >= 1, 'an admin edits workspaces');
  assert.is(c.roles, 0, 'only owners change roles');
  assert.is(c.remove, 0, 'an admin cannot remove the owner, the only other member');
  assert.is(c.rename, 0, 'only owners rename the org');
  assert.equal(owner.problems.list, []);
  assert.equal(b.problems.list, []);
});

test('the last owner cannot step down: no Leave button, and a demotion is refused in words', async () => {
  const page = owner.page;
  assert.is(await count(page, 'Leave'), 0, 'the only owner is not offered to leave');
  await page.getByRole('button', { name: 'Change role of owner@example.com' }).click();
  const dialog = page.getByRole('dialog', { name: 'Role of owner@example.com' });
  await dialog.getByLabel('Role').selectOption('member');
  await dialog.getByRole('button', { name: 'Save role' }).click();
  await dialog.getByText('An organisation needs at least one owner.').waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  // Emptied at render, closed by the next effect: until then the page is modal and swallows input.
  await page.locator('dialog[open]').waitFor({ state: 'detached' });
  assert.is((await meOf(owner)).role, 'owner');
  assert.equal(owner.problems.list, []);
});

test('a declined invitation leaves the inviter\'s pending list, and the banner goes with it', async () => {
  await invite(owner.page, 'c@example.com');
  await owner.page.getByText('Invitation sent to c@example.com.').waitFor();
  const c = await as('c@example.com');
  await c.page.getByRole('link', { name: 'See it' }).click();
  await c.page.getByRole('button', { name: 'Decline the invitation to Acme Team' }).click();
  await c.page.getByText('You declined the invitation to Acme Team.').waitFor();
  // The notice waits for the list read again: the invitation is gone as it shows.
  assert.is(await c.page.getByText('No invitations are waiting for you.').count(), 1, 'the list read again before the notice');
  await c.page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Overview' }).click();
  await c.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  assert.is(await c.page.getByText('You have an invitation').count(), 0, 'the banner read the invitations again');
  assert.is((await orgsOf(c)).length, 1, 'c joined nothing');
  await owner.page.reload();
  await openTeam(owner.page);
  await owner.page.getByText('No invitations are waiting for an answer.').waitFor();
  assert.equal(c.problems.list, []);
  await c.ctx.close();
});

test('a revoked invitation is gone for the invitee too', async () => {
  const page = owner.page;
  await invite(page, 'd@example.com', 'admin');
  await page.getByText('Invitation sent to d@example.com.').waitFor();
  await page.getByRole('button', { name: 'Revoke the invitation to d@example.com' }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke the invitation to d@example.com?' });
  await confirm.getByRole('button', { name: 'Revoke invitation' }).click();
  await page.getByText('The invitation to d@example.com was revoked.').waitFor();
  // The notice waits for the list read again: it never shows beside the revoked row.
  assert.is(await page.getByRole('cell', { name: 'd@example.com', exact: true }).count(), 0);
  const d = await as('d@example.com');
  assert.is(await d.page.getByText('You have an invitation').count(), 0);
  assert.equal((await (await d.ctx.request.get(gw.url + '/me/invitations')).json()).data, []);
  assert.equal(d.problems.list, []);
  await d.ctx.close();
});

test('the owner removes a member after confirming; an admin leaves and is back in their personal org', async () => {
  const page = owner.page;
  await invite(page, 'e@example.com');
  await page.getByText('Invitation sent to e@example.com.').waitFor();
  const e = await as('e@example.com');
  await e.page.getByRole('link', { name: 'See it' }).click();
  await e.page.getByRole('button', { name: 'Accept the invitation to Acme Team' }).click();
  await e.page.getByText('You joined Acme Team.').waitFor();
  await e.page.getByRole('status').filter({ hasText: 'You joined' }).getByRole('button', { name: 'Switch to Acme Team' }).click();
  await e.page.getByText('You are now working in Acme Team.').waitFor();
  await e.ctx.close();

  await page.reload();
  await openTeam(page);
  await page.getByRole('button', { name: 'Remove e@example.com' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove e@example.com?' });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  assert.ok(await page.getByRole('cell', { name: 'e@example.com', exact: true }).isVisible(), 'cancel keeps the member');
  await page.getByRole('button', { name: 'Remove e@example.com' }).click();
  await confirm.getByRole('button', { name: 'Remove member' }).click();
  await page.getByText('e@example.com was removed from Acme Team.').waitFor();
  // The notice waits for the table read again: it never shows beside the removed row.
  assert.is(await page.getByRole('cell', { name: 'e@example.com', exact: true }).count(), 0);

  // b, an admin now, leaves.
  await b.page.getByRole('button', { name: 'Leave' }).click();
  const leave = b.page.getByRole('dialog', { name: 'Leave Acme Team?' });
  await leave.getByRole('button', { name: 'Leave the organisation' }).click();
  await b.page.getByText('You left Acme Team and are back in your personal organisation.').waitFor();
  const me = await meOf(b);
  assert.is(me.org.personal, true);
  await b.page.getByText('This is your personal organisation: it has only you').waitFor();
  await b.page.getByLabel('Organisation', { exact: true }).waitFor({ state: 'detached' }); // one org left: no switcher
  assert.equal(owner.problems.list, []);
  assert.equal(b.problems.list, []);
  await b.ctx.close();
});

test('workspaces: create with a ₹ budget, a duplicate refused in words, budget changed and cleared, archive after confirming', async () => {
  const page = owner.page;
  await page.getByLabel('Name', { exact: true }).fill('Research');
  await page.getByLabel('Monthly budget (₹)').fill('500');
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await page.getByText('Workspace Research created.').waitFor();
  const table = page.getByRole('table', { name: 'Workspaces of Acme Team' });
  const row = table.getByRole('row').filter({ hasText: 'Research' });
  assert.match(await row.innerText(), /₹500\.00/);

  await page.getByLabel('Name', { exact: true }).fill('research');
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await page.getByText('A workspace with that name already exists.').waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Bad budget');
  await page.getByLabel('Monthly budget (₹)').fill('lots');
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await page.getByText('The monthly budget must be an amount in ₹').waitFor();

  await page.getByRole('button', { name: 'Edit Research' }).click();
  let dialog = page.getByRole('dialog', { name: 'Edit Research' });
  await dialog.getByLabel('Monthly budget (₹)').fill('1,250.50');
  await dialog.getByLabel('Name').fill('Research lab');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Research lab saved.').waitFor();
  const lab = table.getByRole('row').filter({ hasText: 'Research lab' });
  assert.match(await lab.innerText(), /₹1,250\.50/);
  let list = (await (await owner.ctx.request.get(gw.url + '/me/workspaces')).json()).data;
  assert.is(list.find((w: { name: string }) => w.name === 'Research lab').monthly_budget_inr, 1250.5);

  await page.getByRole('button', { name: 'Edit Research lab' }).click();
  dialog = page.getByRole('dialog', { name: 'Edit Research lab' });
  await dialog.getByRole('button', { name: 'Remove the budget cap' }).click();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Research lab saved.').waitFor();
  await lab.getByText('No cap').waitFor();

  assert.is(await count(page, /^Edit default$/), 1);
  assert.is(await count(page, /^Archive default$/), 0, 'the default workspace cannot be archived');
  await page.getByRole('button', { name: 'Archive Research lab' }).click();
  const confirm = page.getByRole('dialog', { name: 'Archive Research lab?' });
  await confirm.getByText('Every API key in this workspace is revoked').waitFor();
  await confirm.getByRole('button', { name: 'Archive workspace' }).click();
  await page.getByText('Research lab was archived.').waitFor();
  await lab.waitFor({ state: 'detached' });
  await page.getByText('Archived workspaces (1)').click();
  await page.getByRole('listitem').filter({ hasText: 'Research lab' }).waitFor();
  list = (await (await owner.ctx.request.get(gw.url + '/me/workspaces')).json()).data;
  assert.is(list.find((w: { name: string }) => w.name === 'Research lab').archived, true);
  await shot(page, 'dashboard-team-workspaces');
  assert.equal(owner.problems.list, []);
});

test('settings: the display name and the org name change, and the header shows them; the avatar can be removed', async () => {
  const db = new Database(gw.dbPath);
  db.prepare("UPDATE users SET avatar_url = 'https://avatars.example/o.png' WHERE email = 'owner@example.com'").run();
  db.close();
  const page = owner.page;
  await page.reload();
  await openTeam(page);
  await page.getByLabel('Display name').fill('Asha Rao');
  await page.getByRole('button', { name: 'Save name' }).click();
  await page.getByText('Your name was saved.').waitFor();
  // The session and the members were read again before the notice showed.
  assert.is(await page.locator('.who').filter({ hasText: 'Asha Rao' }).count(), 1, 'the header has the new name as the notice shows');
  assert.is(await page.getByRole('table', { name: 'Members of Acme Team' }).getByText('Asha Rao').count(), 1, 'the members table has it too');
  await page.getByRole('button', { name: 'Remove my picture' }).click();
  await page.getByText('Your picture was removed.').waitFor();
  assert.is((await meOf(owner)).avatar_url, null);
  assert.is(await count(page, 'Remove my picture'), 0);

  await page.getByRole('textbox', { name: 'Organisation name' }).fill('<b>');
  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByText('The name needs a fix.').waitFor();
  await page.getByRole('textbox', { name: 'Organisation name' }).fill('Acme राज Team');
  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByText('The organisation is now called Acme राज Team.').waitFor();
  // The switcher reloads its list after the rename: wait for it rather than read it once.
  await page.waitForFunction(() => (globalThis as any).document.querySelector('#org-switch option:checked')?.textContent.includes('Acme राज Team'));
  // The page's list of organisations was read again before the notice showed.
  assert.is(await page.getByRole('table', { name: 'Organisations you belong to' }).getByText('Acme राज Team').count(), 1, 'the list has the new name as the notice shows');
  assert.equal(owner.problems.list, []);
});

test('the dark theme of the Team page has no violations', async () => {
  const page = owner.page;
  await page.getByRole('button', { name: 'Use the dark theme' }).click();
  assert.is(await themeOf(page), 'dark');
  await noViolations(page, 'team dark');
  await shot(page, 'dashboard-team-dark');
  await page.getByRole('button', { name: 'Use the light theme' }).click();
  assert.equal(owner.problems.list, []);
});

test('caps in words: a third team org is refused (team_cap), and a full org refuses invitations (member_cap)', async () => {
  const s = await as('capped@example.com');
  await openTeam(s.page);
  await s.page.getByLabel('Team name').fill('One');
  await s.page.getByRole('button', { name: 'Create team' }).click();
  await s.page.getByText('One is ready and you are its owner.').waitFor();
  await s.page.getByLabel('Team name').fill('Two');
  await s.page.getByRole('button', { name: 'Create team' }).click();
  await s.page.getByText('Two is ready and you are its owner.').waitFor();
  await s.page.getByLabel('Team name').fill('Three');
  await s.page.getByRole('button', { name: 'Create team' }).click();
  await s.page.getByText('You have reached the limit of team organisations.').waitFor();

  await s.page.getByRole('button', { name: 'Switch to Two' }).click();
  await s.page.getByText('You are now working in Two.').waitFor();
  for (const who of ['x1', 'x2', 'x3']) {
    await invite(s.page, `${who}@example.com`);
    await s.page.getByText(`Invitation sent to ${who}@example.com.`).waitFor();
  }
  await invite(s.page, 'x4@example.com');
  await s.page.getByText('This organisation has reached its member limit.').waitFor();
  assert.equal(s.problems.list, []);
  await s.ctx.close();
});

test('at 390 px the Team page fits the screen, with no sideways scrolling, and has no violations', async () => {
  // A new sign-in starts in the personal org: the switcher (narrow, in the header) moves to the team.
  const s = await as('owner@example.com', { viewport: { width: 390, height: 844 } });
  await s.page.getByLabel('Organisation', { exact: true }).selectOption(teamId);
  await s.page.getByText(/^Organisation Acme राज Team, signed in/).waitFor();
  await s.page.getByRole('button', { name: 'Menu' }).click();
  await openTeam(s.page, 'nav');
  await s.page.getByText('Organisation Acme राज Team: your role is owner.').waitFor();
  const wide = await s.page.evaluate('document.documentElement.scrollWidth') as number;
  assert.ok(wide <= 390, `the page is ${wide} px wide`);
  await noViolations(s.page, 'team phone');
  await shot(s.page, 'dashboard-team-phone');
  assert.equal(s.problems.list, []);
  await s.ctx.close();
  await owner.ctx.close();
});

test.run();
