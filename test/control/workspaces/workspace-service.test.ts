import * as assert from 'uvu/assert';
import { workspaceRoutes } from '../../../src/control/workspaces/workspace-routes.js';
import { WorkspaceService } from '../../../src/control/workspaces/workspace-service.js';
import { newId } from '../../../src/lib/ids.js';
import { insertKey } from '../../../src/store/keys.js';
import { postgresWorkspaceStore } from '../../../src/store/postgres/pg-workspaces.js';
import { sqliteWorkspaceStore } from '../../../src/store/workspaces.js';
import { eachBackend, type Person, type StoreBackend } from '../../support/store-backends.js';

// Workspace rules through the router, in process, over SQLite and over PostgreSQL: unique names
// ignoring case in any script, the default never archived, archiving revoking keys, another org's
// workspace 404.

/** A trial key in a workspace, written as key creation leaves it. */
async function seedKey(be: StoreBackend, orgId: string, workspaceId: string): Promise<string> {
  if (be.db) return insertKey(be.db, { orgId, workspaceId, name: 'k', tier: 'trial' }, Date.now()).id;
  const id = newId('key');
  await be.pg!`INSERT INTO api_keys (id, org_id, workspace_id, name, hash, prefix, tier, created_at)
    VALUES (${id}, ${orgId}, ${workspaceId}, 'k', ${newId('h')}, 'gw-x', 'trial', ${Date.now()})`;
  return id;
}

eachBackend('workspaces', (test, be) => {
  const keysChanged: string[] = [];
  const workspacesChanged: string[] = [];
  let as: (p: Person, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: object) => ReturnType<ReturnType<StoreBackend['injector']>>;
  let a: Person;
  let b: Person;
  // A clock that moves on each read: workspaces made in one millisecond would otherwise be listed
  // by their random ids, and the listing order is what one test checks.
  let clockAt = Date.now();

  test.before(async () => {
    const call = be().injector(workspaceRoutes(new WorkspaceService({
      workspaces: be().pick(sqliteWorkspaceStore, postgresWorkspaceStore), clock: { now: () => (clockAt += 1) },
      keyChanged: (id) => keysChanged.push(id), workspaceChanged: (id) => workspacesChanged.push(id),
    })));
    as = (p, method, url, body) => call({ method, url, headers: p.headers, body });
    a = await be().signUp('a@example.com');
    b = await be().signUp('b@example.com');
  });

  test('names are unique among active workspaces ignoring case, in any script; a budget is ₹ on the wire', async () => {
    const made = await as(a, 'POST', '/me/workspaces', { name: 'Ärzte', monthly_budget_inr: 12.5 });
    assert.is(made.status, 201);
    assert.equal({ ...made.json(), id: '', created_at: '' }, {
      id: '', name: 'Ärzte', default: false, monthly_budget_inr: 12.5, spent_month_inr: 0, archived: false, archived_at: null, created_at: '',
    });
    const dup = await as(a, 'POST', '/me/workspaces', { name: 'ärzte' });
    assert.equal([dup.status, dup.json().error.code], [400, 'duplicate_workspace']);
    assert.is((await as(a, 'POST', '/me/workspaces', { name: 'DEFAULT' })).json().error.code, 'duplicate_workspace');
    // Another org may use the name.
    assert.is((await as(b, 'POST', '/me/workspaces', { name: 'Ärzte' })).status, 201);
    assert.is((await as(a, 'POST', '/me/workspaces', { name: '' })).json().error.code, 'bad_name');
  });

  test("renaming checks the name against the org's other workspaces; a budget change reaches the data plane", async () => {
    const [, arzte] = (await as(a, 'GET', '/me/workspaces')).json().data;
    const same = await as(a, 'PATCH', `/me/workspaces/${arzte.id}`, { name: 'ÄRZTE', monthly_budget_inr: null });
    assert.equal([same.json().name, same.json().monthly_budget_inr], ['ÄRZTE', null]);
    assert.equal(workspacesChanged, [arzte.id]);
    assert.is((await as(a, 'PATCH', `/me/workspaces/${arzte.id}`, { name: 'default' })).json().error.code, 'duplicate_workspace');
    const other = await as(b, 'PATCH', `/me/workspaces/${arzte.id}`, { name: 'mine' });
    assert.equal([other.status, other.json().error.code], [404, 'not_found']);
  });

  test('archiving revokes the workspace\'s keys and frees its name; the default cannot be archived', async () => {
    const ws = (await as(a, 'POST', '/me/workspaces', { name: 'tmp' })).json();
    const keyId = await seedKey(be(), a.personalOrgId, ws.id);
    keysChanged.length = 0;
    assert.is((await as(b, 'DELETE', `/me/workspaces/${ws.id}`)).status, 404);
    assert.equal((await as(a, 'DELETE', `/me/workspaces/${ws.id}`)).json(), { id: ws.id, archived: true, revoked_keys: 1 });
    assert.equal(keysChanged, [keyId]);
    assert.is((await as(a, 'PATCH', `/me/workspaces/${ws.id}`, { name: 'again' })).status, 404);
    assert.is((await as(a, 'POST', '/me/workspaces', { name: 'tmp' })).status, 201);
    const dfltId = (await as(a, 'GET', '/me/workspaces')).json().data[0].id;
    const dflt = await as(a, 'DELETE', `/me/workspaces/${dfltId}`);
    assert.equal([dflt.status, dflt.json().error.code], [400, 'bad_request']);
    const listed = (await as(a, 'GET', '/me/workspaces')).json().data as { name: string; archived: boolean }[];
    assert.equal(listed.map((w) => [w.name, w.archived]), [['default', false], ['ÄRZTE', false], ['tmp', false], ['tmp', true]]);
  });

  test('concurrent creations of one name in one org: exactly one is made', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => as(a, 'POST', '/me/workspaces', { name: 'Race' })));
    assert.equal(results.filter((r) => r.status === 201).length, 1);
    assert.ok(results.every((r) => r.status === 201 || r.json().error.code === 'duplicate_workspace'));
  });
});
