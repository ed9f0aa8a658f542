import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface InputProps {
  label: string;
  hint?: ComponentChildren;
  value: string;
  onInput: (v: string) => void;
  type?: string;
  name?: string;
  placeholder?: string;
  required?: boolean;
  disabled?: boolean;
  min?: number | string;
  max?: number | string;
  step?: number | string;
  pattern?: string;
  maxLength?: number;
  inputMode?: 'text' | 'numeric' | 'decimal' | 'email' | 'search' | 'tel' | 'url' | 'none';
  autoComplete?: string;
  autoFocus?: boolean;
  /** Marks the input invalid for screen readers (after a refused save). */
  invalid?: boolean;
}

/** A labelled input: the label and hint are tied to it for screen readers. */
export function Field({ label, hint, value, onInput, invalid, ...rest }: InputProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} value={value} onInput={(e) => onInput((e.target as HTMLInputElement).value)}
        aria-describedby={hint ? id + '-hint' : undefined} aria-invalid={invalid ? 'true' : undefined} {...(rest as Record<string, unknown>)} />
      {hint && <small id={id + '-hint'} class="hint">{hint}</small>}
    </div>
  );
}

type SelectProps = {
  label: string;
  value: string;
  onChange: (v: string) => void;
  options: { value: string; label: string }[];
  hint?: ComponentChildren;
  disabled?: boolean;
  name?: string;
};

export function Select(p: SelectProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <select id={id} name={p.name} value={p.value} disabled={p.disabled} onChange={(e) => p.onChange((e.target as HTMLSelectElement).value)}
        aria-describedby={p.hint ? id + '-hint' : undefined}>
        {p.options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
      {p.hint && <small id={id + '-hint'} class="hint">{p.hint}</small>}
    </div>
  );
}

export function TextArea(p: { label: string; value: string; onInput: (v: string) => void; rows?: number; hint?: ComponentChildren; name?: string; required?: boolean }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <textarea id={id} name={p.name} rows={p.rows ?? 4} value={p.value} required={p.required}
        onInput={(e) => p.onInput((e.target as HTMLTextAreaElement).value)} aria-describedby={p.hint ? id + '-hint' : undefined} />
      {p.hint && <small id={id + '-hint'} class="hint">{p.hint}</small>}
    </div>
  );
}

export function Check(p: { label: string; checked: boolean; onChange: (v: boolean) => void; name?: string }) {
  const id = useId();
  return (
    <div class="check">
      <input id={id} type="checkbox" name={p.name} checked={p.checked} onChange={(e) => p.onChange((e.target as HTMLInputElement).checked)} />
      <label for={id}>{p.label}</label>
    </div>
  );
}
