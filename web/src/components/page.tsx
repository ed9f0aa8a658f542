import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

/** A page: its heading (the document title follows it) and optional actions beside it. */
export function Page(p: { title: string; actions?: ComponentChildren; children: ComponentChildren; lead?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${p.title} · Gateway`;
  }, [p.title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <div>
          <h1 id="page-title" tabIndex={-1}>{p.title}</h1>
          {p.lead && <p class="lead">{p.lead}</p>}
        </div>
        {p.actions && <div class="actions">{p.actions}</div>}
      </header>
      {p.children}
    </section>
  );
}

/** A titled block within a page. */
export function Section(p: { title: string; actions?: ComponentChildren; children: ComponentChildren; id?: string }) {
  const id = p.id ?? 'sec-' + p.title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return (
    <section class="card" aria-labelledby={id}>
      <header class="card-head">
        <h2 id={id}>{p.title}</h2>
        {p.actions && <div class="actions">{p.actions}</div>}
      </header>
      {p.children}
    </section>
  );
}
