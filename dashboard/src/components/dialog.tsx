import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { useId } from './hooks';
import { Button, ErrorNote } from './ui';

/**
 * The dashboard's one modal: a native `<dialog>` shown with `showModal()`, so the page behind is inert, focus stays
 * inside, and closing gives focus back to what opened it. Its heading names it.
 *
 * Escape is the dialog's cancel, and the page decides what it does, so the page's state and the dialog never
 * disagree. With `onDismiss`, Escape asks the page to close it. Without, only the dialog's own buttons close it: a
 * dialog showing what cannot be shown again (a one-time secret) must not lose it to a stray Escape.
 */
export function Dialog(props: {
  /** Whether it is shown; a dialog rendered only while shown leaves it out. */
  open?: boolean;
  title: string;
  onDismiss?(): void;
  children: ComponentChildren;
}) {
  const open = props.open ?? true;
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId('dialog-title');
  // Whether the page means it shown: set as it renders, so a close the page asked for is never taken for the browser's.
  const wanted = useRef(false);
  wanted.current = open;
  const dismiss = useRef(props.onDismiss);
  dismiss.current = props.onDismiss;
  // Layout effects: shown before the page paints, and closed while still on the page when taken off it (a passive
  // effect's cleanup runs after the element is gone, and focus with it).
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  useLayoutEffect(() => {
    const dialog = ref.current;
    // Taken off the page while shown: closed first, so focus goes back to what opened it.
    return () => {
      wanted.current = false;
      dialog?.close();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        // A cancel that cannot be refused closes the dialog anyway: `onClose` below answers it, once.
        if (event.cancelable) dismiss.current?.();
      }}
      onClose={(event) => {
        if (!wanted.current) return;
        // Closed by the browser while the page still shows it: Chrome closes outright on a second Escape without
        // user activation in between. A dialog that may be dismissed follows; one that may not opens again.
        if (dismiss.current) dismiss.current();
        else event.currentTarget.showModal();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/** A confirmation for what cannot be undone, on the one dialog: Escape or Cancel closes it, focus returns to the page. */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmText: string;
  busy?: boolean;
  problem?: unknown;
  doing?: string;
  onConfirm(): void;
  onCancel(): void;
}) {
  return (
    <Dialog open={props.open} title={props.title} onDismiss={props.onCancel}>
      {props.children}
      <ErrorNote problem={props.problem} doing={props.doing} />
      <div class="actions">
        <Button kind="danger" busy={props.busy} busyText="Working…" onClick={props.onConfirm}>
          {props.confirmText}
        </Button>
        <Button onClick={props.onCancel}>Cancel</Button>
      </div>
    </Dialog>
  );
}
