/** The one signal a model call is sent with: the caller's, and the run's deadline. */
export function deadlineSignal(
  deadline: number,
  caller: AbortSignal | undefined,
): { readonly signal: AbortSignal; readonly expired: () => boolean; dispose(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('deadline')), Math.max(0, deadline - Date.now()));
  const onCallerAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) controller.abort(caller.reason);
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    expired: () => Date.now() >= deadline,
    dispose() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCallerAbort);
    },
  };
}

/** Whole milliseconds since `started` (a performance.now() reading). */
export const timeSince = (started: number): number => Math.round(performance.now() - started);
