import type { ComponentChildren } from 'preact';

/** A table that may scroll sideways on a phone: the scroller takes keyboard focus so it can be scrolled without a mouse. */
export function ScrollTable(p: { label: string; children: ComponentChildren }) {
  return <div class="table-wrap coll-scroll-table" tabIndex={0} role="region" aria-label={p.label}>{p.children}</div>;
}
