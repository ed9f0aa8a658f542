import { useState } from 'preact/hooks';

/** Copies text to the clipboard and says so (to screen readers too). */
export function CopyButton(p: { text: string; label?: string }) {
  const [done, setDone] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(p.text);
      setDone('copied');
    } catch {
      setDone('failed');
    }
    setTimeout(() => setDone('idle'), 2000);
  };
  return (
    <button type="button" class="btn btn-small" onClick={copy} aria-live="polite">
      {done === 'copied' ? 'Copied' : done === 'failed' ? 'Copy failed: select and copy' : p.label ?? 'Copy'}
    </button>
  );
}
