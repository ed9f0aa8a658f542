export type Theme = 'light' | 'dark';
const KEY = 'gw-theme';

/** The chosen theme, else the system's. */
export function currentTheme(): Theme {
  const saved = localStorage.getItem(KEY);
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function applyTheme(t: Theme, save = false): void {
  document.documentElement.dataset.theme = t;
  if (save) localStorage.setItem(KEY, t);
  dispatchEvent(new Event('gw-theme'));
}
