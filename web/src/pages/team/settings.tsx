import { useState } from 'preact/hooks';
import { api } from '../../lib/api';
import { useSession } from '../../lib/session';
import { Section } from '../../components/page';
import { ErrorNotice, Notice } from '../../components/notice';
import { Field } from '../../components/field';
import { useAction } from './use-action';

/** Your display name and picture (PATCH /me), and the org's name (PATCH /me/org, owner). */
export function Settings(p: { onSaved: () => Promise<void> }) {
  const { can } = useSession();
  return (
    <Section title="Settings">
      <div class="grid-2">
        <Profile onSaved={p.onSaved} />
        {can('owner') && <OrgName onSaved={p.onSaved} />}
      </div>
    </Section>
  );
}

function Profile(p: { onSaved: () => Promise<void> }) {
  const { me, refresh } = useSession();
  const [name, setName] = useState(me.name ?? '');
  const [saved, setSaved] = useState('');
  const action = useAction();
  const save = async (e: Event) => {
    e.preventDefault();
    setSaved('');
    const next = name.trim();
    if (await action.run(() => api.patch('/me', { name: next === '' ? null : next }))) {
      await refresh();
      await p.onSaved();
      setSaved(next === '' ? 'Your name was cleared: your email is shown instead.' : 'Your name was saved.');
    }
  };
  const removeAvatar = async () => {
    setSaved('');
    if (await action.run(() => api.patch('/me', { remove_avatar: true }))) {
      await refresh();
      setSaved('Your picture was removed.');
    }
  };
  return (
    <form class="form" onSubmit={save} aria-labelledby="profile-title">
      <h3 id="profile-title">Your profile</h3>
      <p class="muted team-intro">Signed in as {me.email}.</p>
      <Field label="Display name" value={name} onInput={setName} maxLength={80} autoComplete="name"
        hint="Shown to your teammates. Leave it empty to show your email." />
      <div class="actions">
        <button type="submit" class="btn btn-primary" disabled={action.busy}>Save name</button>
        {me.avatar_url && <button type="button" class="btn" disabled={action.busy} onClick={removeAvatar}>Remove my picture</button>}
      </div>
      <ErrorNotice error={action.error} />
      {saved && <Notice tone="ok">{saved}</Notice>}
    </form>
  );
}

function OrgName(p: { onSaved: () => Promise<void> }) {
  const { me, refresh } = useSession();
  const [name, setName] = useState(me.org.name);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    if (await action.run(() => api.patch('/me/org', { name: name.trim() }))) {
      await refresh();
      await p.onSaved();
      setSaved(true);
    }
  };
  return (
    <form class="form" onSubmit={save} aria-labelledby="org-name-title">
      <h3 id="org-name-title">Organisation name</h3>
      <p class="muted team-intro">Shown in the header, and named in the invitations you send.</p>
      <Field label="Organisation name" value={name} onInput={setName} required maxLength={80} autoComplete="organization" />
      <div class="actions"><button type="submit" class="btn btn-primary" disabled={action.busy}>Rename</button></div>
      <ErrorNotice error={action.error} />
      {saved && <Notice tone="ok">The organisation is now called {me.org.name}.</Notice>}
    </form>
  );
}
