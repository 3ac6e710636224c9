import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useId } from './hooks';
import { ApiProblem, fieldMessage, problemInWords } from '../logic/api-errors';

/** Shared pieces of the pages: errors in words, progress, greyed-out reasons, copy buttons (confirmations: dialog.tsx). */

export function ErrorNote({ problem, doing, id }: { problem: unknown; doing?: string; id?: string }) {
  if (problem === undefined) return null;
  return (
    <p class="error" role="alert" id={id}>
      {problemInWords(problem, doing)}
    </p>
  );
}

/** A field's own problem from a 400 that named it, next to the field. */
export function FieldError({ problem, field, id }: { problem: unknown; field: string | readonly string[]; id: string }) {
  const fields = typeof field === 'string' ? [field] : field;
  if (!(problem instanceof ApiProblem) || problem.status !== 400 || !problem.field) return null;
  if (!fields.some((name) => problem.field === name || problem.field?.startsWith(`${name}.`))) return null;
  return (
    <span class="field-error" id={id} role="alert">
      {fieldMessage(problem)}
    </span>
  );
}

/** True when a 400 names one of these fields: the field shows it, the form's general note does not. */
export function isFieldProblem(problem: unknown, fields: readonly string[]): boolean {
  return (
    problem instanceof ApiProblem && problem.status === 400 && fields.some((name) => problem.field === name || problem.field?.startsWith(`${name}.`) === true)
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

/** Why the controls nearby are greyed out; they point at it with aria-describedby. */
export function DeniedNote({ id, reason }: { id: string; reason: string | undefined }) {
  if (!reason) return null;
  return (
    <p class="denied" id={id}>
      <LockIcon /> {reason}
    </p>
  );
}

/** A padlock drawn, not a character: the emoji needs a font that many systems lack (it showed as a missing-glyph box). */
function LockIcon() {
  return (
    <svg class="icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <path d="M5 7V5a3 3 0 0 1 6 0v2" fill="none" stroke="currentColor" stroke-width="1.6" />
      <rect x="3" y="7" width="10" height="7" rx="1.5" fill="currentColor" />
    </svg>
  );
}

type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type' | 'disabled'> & {
  busy?: boolean;
  busyText?: string;
  denied?: string | undefined;
  deniedId?: string;
  kind?: 'primary' | 'danger' | 'plain';
  disabled?: boolean;
  type?: 'button' | 'submit';
};

/** A button that says when it is working, and is greyed (with the reason described) when the role forbids it. */
export function Button({ busy, busyText, denied, deniedId, kind = 'plain', disabled, children, type = 'button', ...rest }: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      class={`button ${kind}`}
      disabled={disabled || busy || denied !== undefined}
      aria-busy={busy ? 'true' : undefined}
      aria-describedby={denied !== undefined ? deniedId : (rest['aria-describedby'] as string | undefined)}
      title={denied}
    >
      {busy ? (
        <>
          <span class="spinner" aria-hidden="true" /> {busyText ?? 'Working…'}
        </>
      ) : (
        children
      )}
    </button>
  );
}

/** Copies to the clipboard; where the browser refuses, selects the text and says how to copy it. */
export function CopyButton({ text, label, copiedText = 'Copied' }: { text: string; label: string; copiedText?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'manual'>('idle');
  const copy = async (event: Event) => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      const field = (event.currentTarget as HTMLElement).parentElement?.querySelector('textarea, input');
      if (field instanceof HTMLTextAreaElement || field instanceof HTMLInputElement) field.select();
      setState('manual');
    }
  };
  return (
    <span class="copy">
      <Button onClick={copy}>{label}</Button>
      <span role="status" class="copy-state">
        {state === 'copied' ? copiedText : state === 'manual' ? 'Selected: press Ctrl+C (⌘C) to copy' : ''}
      </span>
    </span>
  );
}

export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <span>{iso}</span>;
  return (
    <time dateTime={iso} title={date.toISOString()}>
      {date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}

/**
 * The page's heading, and the tab's title. A new page takes the focus to its heading, as a page load
 * would, so a screen reader announces where a link led; never while the person is typing in a field.
 */
export function PageTitle({ children, actions }: { children: ComponentChildren; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const text = typeof children === 'string' ? children : Array.isArray(children) ? children.filter((c) => typeof c === 'string').join('') : '';
    if (text) document.title = `${text} · Prompt dashboard`;
  }, [children]);
  useEffect(() => {
    const active = document.activeElement;
    if (!(active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement || active instanceof HTMLSelectElement)) heading.current?.focus();
  }, []);
  return (
    <div class="page-title">
      <h1 tabIndex={-1} ref={heading}>
        {children}
      </h1>
      {actions ? <div class="actions">{actions}</div> : null}
    </div>
  );
}

/**
 * A labelled control of a form: the label names the control and nothing else (so its accessible name
 * stays what it does), while the hint and the API's word on the field describe it.
 */
export function Control(props: {
  label: string;
  hint?: ComponentChildren;
  problem?: unknown;
  field?: string | readonly string[];
  /** Also describes the control, e.g. why it is greyed out. */
  describedBy?: string;
  children: (control: { id: string; 'aria-describedby': string }) => ComponentChildren;
}) {
  const id = useId('control');
  const described = [props.hint ? `${id}-hint` : '', props.field ? `${id}-error` : '', props.describedBy ?? ''].filter(Boolean).join(' ');
  return (
    <div class="control">
      <label for={id}>{props.label}</label>
      {props.children({ id, 'aria-describedby': described })}
      {props.hint ? (
        <span class="hint" id={`${id}-hint`}>
          {props.hint}
        </span>
      ) : null}
      {props.field ? <FieldError problem={props.problem} field={props.field} id={`${id}-error`} /> : null}
    </div>
  );
}
