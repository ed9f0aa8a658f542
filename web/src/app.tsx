import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, onSignedOut } from './lib/api';
import { linkClick, match, navigate, useLocation } from './lib/router';
import { reaches, SessionContext, type Me, type SessionState } from './lib/session';
import { PAGES } from './routes';
import { Shell } from './shell';
import { SignIn } from './pages/sign-in';
import { NotFound } from './pages/not-found';
import { Loading, Notice } from './components/notice';
import { Attribution } from './attribution';

/** The dashboard: reads /me once; without a session every page is the sign-in page. */
export function App() {
  const loc = useLocation();
  const [me, setMe] = useState<Me | null>(null);
  const [state, setState] = useState<'loading' | 'in' | 'out' | 'error'>('loading');
  const [error, setError] = useState('');

  const refresh = useCallback(async () => {
    try {
      setMe(await api.get<Me>('/me'));
      setState('in');
    } catch (e) {
      if (e instanceof ApiError && e.code === 'no_session') setState('out');
      else {
        setError((e as Error).message);
        setState('error');
      }
    }
  }, []);
  useEffect(() => void refresh(), [refresh]);
  useEffect(() => onSignedOut(() => setState('out')), []);
  useEffect(() => {
    addEventListener('click', linkClick);
    return () => removeEventListener('click', linkClick);
  }, []);

  const session = useMemo<SessionState | null>(() => (me ? { me, refresh, can: (r) => reaches(me.role, r) } : null), [me, refresh]);

  if (state === 'loading') return <main id="main" class="center"><Loading /></main>;
  if (state === 'error') return <main id="main" class="center"><Notice tone="error">The gateway could not be reached: {error}</Notice></main>;
  if (state === 'out' || !session) return <SignIn />;
  if (loc.path === '/sign-in') {
    navigate('/', { replace: true });
    return null;
  }

  let found: { route: (typeof PAGES)[number]; params: Record<string, string> } | null = null;
  for (const route of PAGES) {
    const params = match(route.path, loc.path);
    if (params) {
      found = { route, params };
      break;
    }
  }
  const allowed = found && (!found.route.role || session.can(found.route.role));
  const Page = found?.route.page;
  return (
    <SessionContext.Provider value={session}>
      <Shell path={loc.path}>
        {found && Page && allowed ? <Page key={loc.path} params={found.params} />
          : found ? <Notice tone="warn">This page needs the {found.route.role} role in {session.me.org.name}.</Notice>
          : <NotFound />}
      </Shell>
      {session.me.attribution_pending && <Attribution onDone={refresh} />}
    </SessionContext.Provider>
  );
}
