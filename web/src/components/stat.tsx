import type { ComponentChildren } from 'preact';

/** One headline figure. */
export function Stat(p: { label: string; value: ComponentChildren; note?: ComponentChildren; tone?: 'warn' }) {
  return (
    <div class={`stat${p.tone ? ' stat-' + p.tone : ''}`}>
      <div class="stat-label">{p.label}</div>
      <div class="stat-value">{p.value}</div>
      {p.note && <div class="stat-note">{p.note}</div>}
    </div>
  );
}
