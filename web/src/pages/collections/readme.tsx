import { useEffect, useState } from 'preact/hooks';
import { Loading, Notice } from '../../components/notice';

/** A collection's README, rendered from Markdown and sanitised (the renderer loads on first use). */
export function Readme(p: { source: string; label: string }) {
  const [html, setHtml] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    import('./readme-html')
      .then((m) => live && setHtml(m.readmeHtml(p.source)))
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [p.source]);
  if (failed) return <Notice tone="error">The README could not be shown: reload the page to try again.</Notice>;
  if (html === null) return <Loading label="Rendering the README…" />;
  if (p.source.trim() === '') return <p class="empty">No README.</p>;
  return <div class="coll-readme" aria-label={p.label} role="region" dangerouslySetInnerHTML={{ __html: html }} />;
}
