import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

/**
 * A modal dialog on the native <dialog>: focus moves in and back, Escape closes it, and the
 * page behind is inert, which a hand-made overlay would have to reimplement.
 */
export function Dialog(p: { open: boolean; title: string; onClose: () => void; children: ComponentChildren; actions?: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (p.open && !d.open) d.showModal();
    if (!p.open && d.open) d.close();
  }, [p.open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={titleId} onClose={p.onClose} onCancel={p.onClose}>
      {p.open && (
        <>
          <h2 id={titleId}>{p.title}</h2>
          <div class="dialog-body">{p.children}</div>
          {p.actions && <div class="dialog-actions">{p.actions}</div>}
        </>
      )}
    </dialog>
  );
}

/** A yes/no question before something that cannot be undone. */
export function Confirm(p: {
  open: boolean; title: string; children: ComponentChildren; confirmLabel: string; danger?: boolean;
  busy?: boolean; onConfirm: () => void; onCancel: () => void;
}) {
  return (
    <Dialog open={p.open} title={p.title} onClose={p.onCancel} actions={
      <>
        <button type="button" class="btn" onClick={p.onCancel}>Cancel</button>
        <button type="button" class={p.danger ? 'btn btn-danger' : 'btn btn-primary'} disabled={p.busy} onClick={p.onConfirm}>{p.confirmLabel}</button>
      </>
    }>
      {p.children}
    </Dialog>
  );
}
