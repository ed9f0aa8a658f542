import { useState } from 'preact/hooks';
import { api, seg } from '../../lib/api';
import { day, money } from '../../lib/format';
import { useSession } from '../../lib/session';
import { Section } from '../../components/page';
import { Empty, ErrorNotice, Notice } from '../../components/notice';
import { Confirm, Dialog } from '../../components/dialog';
import { Field } from '../../components/field';
import { useAction } from './use-action';
import type { WorkspaceItem } from './types';

/** A budget field's text as the API wants it: a number of ₹, or null for no cap. */
function budgetOf(text: string): number | null | 'bad' {
  const t = text.trim().replace(/^₹\s*/, '').replace(/,/g, '');
  if (t === '') return null;
  const v = Number(t);
  return Number.isFinite(v) && v >= 0 && v <= 10_000_000 ? Math.round(v * 100) / 100 : 'bad';
}
const BAD_BUDGET = new Error('The monthly budget must be an amount in ₹ from 0 to 1,00,00,000, or empty for no cap.');

/** Spend against the cap: a badge once most of it is used. */
function Spend(p: { w: WorkspaceItem }) {
  const { monthly_budget_inr: cap, spent_month_inr: spent } = p.w;
  if (cap === null) return <>{money(spent)}</>;
  const used = cap === 0 ? 1 : spent / cap;
  return (
    <>
      {money(spent)} <span class="muted">of {money(cap)}</span>{' '}
      {used >= 1 ? <span class="badge badge-danger">Budget spent</span> : used >= 0.8 ? <span class="badge badge-warn">{Math.round(used * 100)}% used</span> : null}
    </>
  );
}

/**
 * The active org's workspaces with their monthly ₹ budgets and this IST month's spend. Writes
 * (create, rename, budget, archive) are owner/admin, so members see the list only.
 */
export function Workspaces(p: { list: WorkspaceItem[]; onChanged: () => Promise<void> }) {
  const { me, can } = useSession();
  const [editing, setEditing] = useState<WorkspaceItem | null>(null);
  const [archiving, setArchiving] = useState<WorkspaceItem | null>(null);
  const [done, setDone] = useState('');
  const archive = useAction();
  const active = p.list.filter((w) => !w.archived);
  const archived = p.list.filter((w) => w.archived);
  const doArchive = async () => {
    const w = archiving!;
    let revoked = 0;
    if (!(await archive.run(async () => { revoked = (await api.del<{ revoked_keys: number }>(`/me/workspaces/${seg(w.id)}`)).revoked_keys; }))) return;
    setArchiving(null);
    await p.onChanged();
    setDone(`${w.name} was archived${revoked ? ` and its ${revoked === 1 ? 'key was' : `${revoked} keys were`} revoked` : ''}.`);
  };
  return (
    <Section title="Workspaces">
      <p class="muted team-intro">
        Workspaces group {me.org.name}’s keys. A monthly budget caps what a workspace’s keys can spend in an IST month;
        once it is spent, their requests are refused until the month turns. Leave the budget empty for no cap.
      </p>
      {done && <Notice tone="ok">{done}</Notice>}
      <div class="table-wrap">
        <table class="team-table">
          <caption class="sr-only">Workspaces of {me.org.name}</caption>
          <thead><tr><th scope="col">Workspace</th><th scope="col">Spent this month (IST)</th><th scope="col">Monthly budget</th>{can('admin') && <th scope="col"><span class="sr-only">Actions</span></th>}</tr></thead>
          <tbody>
            {active.map((w) => (
              <tr key={w.id}>
                <td class="team-break">{w.name} {w.default && <span class="badge">Default</span>}</td>
                <td data-label="Spent this month"><Spend w={w} /></td>
                <td data-label="Monthly budget">{w.monthly_budget_inr === null ? <span class="muted">No cap</span> : money(w.monthly_budget_inr)}</td>
                {can('admin') && (
                  <td>
                    <div class="team-row-actions">
                      <button type="button" class="btn btn-small" aria-label={`Edit ${w.name}`} onClick={() => setEditing(w)}>Edit</button>
                      {!w.default && (
                        <button type="button" class="btn btn-small btn-danger" aria-label={`Archive ${w.name}`} onClick={() => { archive.clear(); setArchiving(w); }}>Archive</button>
                      )}
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {archived.length > 0 && (
        <details class="team-archived">
          <summary>Archived workspaces ({archived.length})</summary>
          <ul>{archived.map((w) => <li key={w.id}>{w.name} <span class="muted">archived {day(w.archived_at)}</span></li>)}</ul>
        </details>
      )}
      {can('admin') && <CreateWorkspace onCreated={async (name) => { await p.onChanged(); setDone(`Workspace ${name} created.`); }} />}
      <Dialog open={editing !== null} title={`Edit ${editing?.name ?? ''}`} onClose={() => setEditing(null)}>
        {editing && <EditWorkspace key={editing.id} w={editing} onClose={() => setEditing(null)} onSaved={async (name) => { setEditing(null); await p.onChanged(); setDone(`${name} saved.`); }} />}
      </Dialog>
      <Confirm open={archiving !== null} danger busy={archive.busy} title={`Archive ${archiving?.name ?? ''}?`} confirmLabel="Archive workspace"
        onCancel={() => setArchiving(null)} onConfirm={doArchive}>
        <p>Every API key in this workspace is revoked at once and stops working. This cannot be undone.</p>
        <ErrorNotice error={archive.error} />
      </Confirm>
    </Section>
  );
}

function CreateWorkspace(p: { onCreated: (name: string) => void }) {
  const [name, setName] = useState('');
  const [budget, setBudget] = useState('');
  const action = useAction();
  const create = async (e: Event) => {
    e.preventDefault();
    const cap = budgetOf(budget);
    let created = '';
    const ok = await action.run(async () => {
      if (cap === 'bad') throw BAD_BUDGET;
      created = (await api.post<WorkspaceItem>('/me/workspaces', { name, monthly_budget_inr: cap })).name;
    });
    if (ok) {
      setName('');
      setBudget('');
      p.onCreated(created);
    }
  };
  return (
    <form class="form team-subform" onSubmit={create} aria-labelledby="new-workspace">
      <h3 id="new-workspace">New workspace</h3>
      <div class="form-row">
        <Field label="Name" value={name} onInput={setName} required maxLength={64} />
        <Field label="Monthly budget (₹)" value={budget} onInput={setBudget} inputMode="decimal" placeholder="No cap" />
        <button type="submit" class="btn btn-primary" disabled={action.busy}>Create workspace</button>
      </div>
      <ErrorNotice error={action.error} />
    </form>
  );
}

function EditWorkspace(p: { w: WorkspaceItem; onClose: () => void; onSaved: (name: string) => void }) {
  const [name, setName] = useState(p.w.name);
  const [budget, setBudget] = useState(p.w.monthly_budget_inr === null ? '' : String(p.w.monthly_budget_inr));
  const action = useAction();
  const save = async (e: Event) => {
    e.preventDefault();
    const cap = budgetOf(budget);
    let saved = p.w.name;
    const ok = await action.run(async () => {
      if (cap === 'bad') throw BAD_BUDGET;
      const body: { name?: string; monthly_budget_inr?: number | null } = {};
      if (name.trim() !== p.w.name) body.name = name;
      if (cap !== p.w.monthly_budget_inr) body.monthly_budget_inr = cap;
      if (Object.keys(body).length) saved = (await api.patch<WorkspaceItem>(`/me/workspaces/${seg(p.w.id)}`, body)).name;
    });
    if (ok) p.onSaved(saved);
  };
  return (
    <form class="form" onSubmit={save}>
      <Field label="Name" value={name} onInput={setName} required maxLength={64} />
      <Field label="Monthly budget (₹)" value={budget} onInput={setBudget} inputMode="decimal"
        hint={`Spent so far this month: ${money(p.w.spent_month_inr)}. Empty the field to remove the cap.`} />
      {budget.trim() !== '' && <button type="button" class="btn btn-link team-clear" onClick={() => setBudget('')}>Remove the budget cap</button>}
      <ErrorNotice error={action.error} />
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={p.onClose}>Cancel</button>
        <button type="submit" class="btn btn-primary" disabled={action.busy}>Save</button>
      </div>
    </form>
  );
}
