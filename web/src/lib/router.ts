import { useEffect, useState } from 'preact/hooks';

/** Where the browser is: the path and the query, as the history API keeps them. */
export interface Location {
  path: string;
  query: URLSearchParams;
}

const listeners = new Set<() => void>();
const read = (): Location => ({ path: location.pathname, query: new URLSearchParams(location.search) });
addEventListener('popstate', () => listeners.forEach((fn) => fn()));

/** Moves to a dashboard path without reloading; replace keeps the history entry (filters, redirects). */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  if (opts.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  listeners.forEach((fn) => fn());
  if (!opts.replace) scrollTo(0, 0);
}

export function useLocation(): Location {
  const [loc, set] = useState(read);
  useEffect(() => {
    const fn = () => set(read());
    listeners.add(fn);
    return () => void listeners.delete(fn);
  }, []);
  return loc;
}

/** Sets one query parameter (or removes it with null), keeping the others: filters live in the URL. */
export function withQuery(loc: Location, changes: Record<string, string | null>): string {
  const q = new URLSearchParams(loc.query);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === '') q.delete(k);
    else q.set(k, v);
  }
  const s = q.toString();
  return loc.path + (s ? '?' + s : '');
}

/** A route pattern like /collections/:slug matched against a path; the params, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.replace(/\/+$/, '').split('/');
  if (path === '/' && pattern === '/') return {};
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) {
      if (!s[i]) return null;
      params[p[i].slice(1)] = decodeURIComponent(s[i]);
    } else if (p[i] !== s[i]) return null;
  }
  return params;
}

/** Same-origin links navigate in place (keeping a #fragment for the page to scroll to); modified clicks (new tab) stay with the browser. */
export function linkClick(e: MouseEvent): void {
  const a = (e.target as Element).closest('a');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  if (a.target || a.hasAttribute('download') || a.origin !== location.origin || a.dataset.native !== undefined) return;
  // A #fragment on this very page: the browser scrolls to it itself.
  if (a.hash && a.pathname === location.pathname && a.search === location.search) return;
  e.preventDefault();
  navigate(a.pathname + a.search + a.hash);
}
