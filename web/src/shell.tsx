import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './lib/api';
import { navigate } from './lib/router';
import { useSession } from './lib/session';
import { applyTheme, currentTheme } from './lib/theme';
import { useData } from './lib/use-data';
import { PAGES } from './routes';

interface OrgItem { id: string; name: string; personal: boolean; role: string; active: boolean }

/** The frame around every signed-in page: a skip link, the header, the navigation, the page. */
export function Shell(p: { path: string; children: ComponentChildren }) {
  const { me, can } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [p.path]);
  // Read again on every refresh() (an invitation accepted or declined on the Team page), not only on a switch.
  const invitations = useData(() => api.get<{ data: unknown[] }>('/me/invitations'), [me]);
  const pending = invitations.data?.data.length ?? 0;
  const current = (path: string) => (path === '/' ? p.path === '/' : p.path === path || p.path.startsWith(path + '/'));
  return (
    <div class="shell">
      <a class="skip" href="#main" data-native onClick={(e) => { e.preventDefault(); document.getElementById('page-title')?.focus(); }}>Skip to content</a>
      <header class="topbar">
        <button type="button" class="btn menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>Menu</button>
        <a href="/" class="brand">gw <span>gateway</span></a>
        <OrgSwitcher />
        <div class="topbar-end">
          <ThemeToggle />
          <span class="who" title={me.email}>{me.name ?? me.email}</span>
          <SignOut />
        </div>
      </header>
      <nav id="nav" class={menuOpen ? 'nav open' : 'nav'} aria-label="Dashboard">
        <ul>
          {PAGES.filter((r) => r.nav && (!r.role || can(r.role))).map((r) => (
            <li key={r.path}><a href={r.path} aria-current={current(r.path) ? 'page' : undefined}>{r.nav}</a></li>
          ))}
        </ul>
      </nav>
      <main id="main" class="main">
        {pending > 0 && p.path !== '/team' && (
          <div class="notice notice-info" role="status">
            You have {pending === 1 ? 'an invitation' : `${pending} invitations`} to join a team. <a href="/team#invitations">See {pending === 1 ? 'it' : 'them'}</a>
          </div>
        )}
        {p.children}
      </main>
    </div>
  );
}

function OrgSwitcher() {
  const { me, refresh } = useSession();
  // Read again on every refresh(): the Team page calls it after creating, joining or leaving an org.
  const orgs = useData(() => api.get<{ data: OrgItem[] }>('/me/orgs'), [me]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const list = orgs.data?.data ?? [];
  if (list.length < 2) return <span class="org-name" title="Organisation">{me.org.name}</span>;
  const change = async (orgId: string) => {
    setBusy(true);
    setError('');
    try {
      await api.post('/me/orgs/switch', { org_id: orgId });
      await refresh();
      navigate('/');
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="org-switch">
      <label for="org-switch" class="sr-only">Organisation</label>
      <select id="org-switch" value={me.org.id} disabled={busy} onChange={(e) => change((e.target as HTMLSelectElement).value)}>
        {list.map((o) => <option key={o.id} value={o.id}>{o.name}{o.personal ? ' (personal)' : ''} · {o.role}</option>)}
      </select>
      {error && <span role="alert" class="error-text">{error}</span>}
    </div>
  );
}

function ThemeToggle() {
  const [theme, setTheme] = useState(currentTheme());
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button type="button" class="btn btn-small" aria-label={`Use the ${next} theme`} onClick={() => { applyTheme(next, true); setTheme(next); }}>
      {theme === 'dark' ? 'Light' : 'Dark'}
    </button>
  );
}

function SignOut() {
  const [busy, setBusy] = useState(false);
  return (
    <button type="button" class="btn btn-small" disabled={busy} onClick={async () => {
      setBusy(true);
      try {
        await api.post('/auth/logout');
      } finally {
        // A full load: nothing of the old session stays in memory.
        location.assign('/');
      }
    }}>Sign out</button>
  );
}
