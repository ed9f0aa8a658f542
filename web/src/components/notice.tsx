import type { ComponentChildren } from 'preact';

type Tone = 'error' | 'warn' | 'ok' | 'info';

/** A message in the page: errors and warnings are announced to screen readers at once, the rest politely. */
export function Notice(p: { tone: Tone; children: ComponentChildren; title?: string }) {
  const urgent = p.tone === 'error' || p.tone === 'warn';
  return (
    <div class={`notice notice-${p.tone}`} role={urgent ? 'alert' : 'status'}>
      {p.title && <strong>{p.title} </strong>}
      {p.children}
    </div>
  );
}

/** An error of a load or an action, in words (ApiError carries the human message). */
export function ErrorNotice(p: { error: Error | null | undefined }) {
  if (!p.error) return null;
  return <Notice tone="error">{p.error.message}</Notice>;
}

export function Loading(p: { label?: string }) {
  return <p class="muted" role="status" aria-live="polite">{p.label ?? 'Loading…'}</p>;
}

export function Empty(p: { children: ComponentChildren }) {
  return <p class="empty">{p.children}</p>;
}
