import { useLayoutEffect } from 'preact/hooks';

/**
 * Leaving a page with unsaved changes asks first (docs/management-api.md, "The dashboard": No lost work): closing the tab or
 * reloading (the browser's own question, `beforeunload`), and following a link inside the dashboard, whose
 * routes are the address's fragment, so the router asks `mayLeave` before it follows one.
 */

let question: string | undefined;
/** Set for a departure the person already confirmed (deleting the draft): asked once is enough. */
let confirmed = false;

/** While `active`, leaving asks `message` first. */
export function useLeaveGuard(active: boolean, message: string): void {
  // A layout effect: in place as soon as the change is on screen, not a frame later (a quick close would miss it).
  useLayoutEffect(() => {
    if (!active) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (confirmed) return;
      event.preventDefault();
      // Older browsers need the return value set to ask at all; none shows the text any more.
      event.returnValue = message;
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    question = message;
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      if (question === message) question = undefined;
    };
  }, [active, message]);
}

/** True when nothing would be lost, or the person said to leave all the same. */
export function mayLeave(): boolean {
  if (confirmed) {
    confirmed = false;
    return true;
  }
  return question === undefined || window.confirm(question);
}

/** The next departure goes without asking: the person already said yes to what loses the text. */
export function leaveWithoutAsking(): void {
  confirmed = true;
}
