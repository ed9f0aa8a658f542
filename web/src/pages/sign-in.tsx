import { useEffect } from 'preact/hooks';
import { api } from '../lib/api';
import { useData } from '../lib/use-data';
import { ErrorNotice, Loading, Notice } from '../components/notice';

interface Methods { providers: { id: string; name: string; url: string }[]; login_link: boolean }

/** Sign-in: a button per configured identity provider, and how an operator's login link works. */
export function SignIn() {
  const methods = useData(() => api.get<Methods>('/auth/methods'), []);
  const back = location.pathname === '/sign-in' ? '/' : location.pathname + location.search;
  useEffect(() => {
    document.title = 'Sign in · Gateway';
  }, []);
  const failed = new URLSearchParams(location.search).get('error');
  return (
    <main id="main" class="signin">
      <div class="card signin-card">
        <h1 id="page-title" tabIndex={-1}>Sign in to the gateway</h1>
        {failed && <Notice tone="error">{failed}</Notice>}
        <ErrorNotice error={methods.error} />
        {methods.loading && !methods.data && <Loading />}
        {methods.data && (
          <>
            {methods.data.providers.length > 0 ? (
              <ul class="signin-buttons">
                {methods.data.providers.map((p) => (
                  <li key={p.id}><a class="btn btn-primary btn-block" data-native href={`${p.url}?return_to=${encodeURIComponent(back)}`}>Sign in with {p.name}</a></li>
                ))}
              </ul>
            ) : (
              <p>No identity provider is configured on this gateway.</p>
            )}
            <details class="signin-link" open={methods.data.providers.length === 0}>
              <summary>Sign in with a login link</summary>
              <p>An operator of this gateway can make a one-time link for your email address:</p>
              <pre><code>gw login-link --email you@example.com</code></pre>
              <p>Open the link it prints in this browser. It works once and expires after a few minutes.</p>
            </details>
          </>
        )}
      </div>
    </main>
  );
}
