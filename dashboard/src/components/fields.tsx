/** Labelled text fields of a form, each with its hint or its problem beneath, tied to it for screen readers. */

export interface FieldProps {
  readonly label: string;
  readonly value: string;
  onInput(event: Event): void;
  /** Why the field cannot be changed; the field is then read-only and greyed. */
  readonly locked: string | undefined;
  readonly id: string;
  readonly error: string | undefined;
  readonly hint?: string;
  readonly mono?: boolean;
}

export function TextField({ label, value, onInput, locked, id, error, hint, rows, mono }: FieldProps & { rows: number }) {
  return (
    <div class="field">
      <label for={id} class="label">
        {label}
      </label>
      <textarea
        id={id}
        class={[mono ? 'mono' : '', locked !== undefined ? 'locked' : ''].join(' ').trim() || undefined}
        value={value}
        rows={rows}
        spellcheck={!mono}
        readOnly={locked !== undefined}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={`${id}-note`}
        onInput={onInput}
      />
      <span id={`${id}-note`} class={error ? 'field-error' : 'hint'} role={error ? 'alert' : undefined}>
        {error ?? hint ?? ''}
      </span>
    </div>
  );
}

export function InputField({ label, value, onInput, locked, id, error, hint, inputMode }: FieldProps & { inputMode?: 'decimal' }) {
  return (
    <div class="field">
      <label for={id} class="label">
        {label}
      </label>
      <input
        id={id}
        class={locked !== undefined ? 'locked' : undefined}
        value={value}
        readOnly={locked !== undefined}
        inputMode={inputMode}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={`${id}-note`}
        onInput={onInput}
      />
      <span id={`${id}-note`} class={error ? 'field-error' : 'hint'} role={error ? 'alert' : undefined}>
        {error ?? hint ?? ''}
      </span>
    </div>
  );
}

export function ReadOnlyText({ label, text }: { label: string; text: string }) {
  return (
    <label class="field">
      <span class="label">{label}</span>
      <textarea readOnly class="mono" rows={Math.min(12, Math.max(2, text.split('\n').length + 1))} value={text} />
    </label>
  );
}
