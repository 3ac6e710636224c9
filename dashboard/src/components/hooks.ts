import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** Data read from the API: loading until it arrives, the problem if it failed, and a way to read it again. */
export interface Loaded<T> {
  readonly data: T | undefined;
  readonly problem: unknown;
  readonly loading: boolean;
  reload(): void;
}

export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; problem: unknown; loading: boolean }>({ data: undefined, problem: undefined, loading: true });
  const [round, setRound] = useState(0);
  // The caller names what the load depends on; `round` is a reload asked for.
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, problem: undefined, loading: false }),
      (problem: unknown) => current && setState((previous) => ({ data: previous.data, problem, loading: false })),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...state, reload };
}

/** An operation the person started: busy while it runs (buttons say so), its problem kept until the next try. */
export interface Action<A extends unknown[]> {
  readonly busy: boolean;
  readonly problem: unknown;
  run(...args: A): Promise<boolean>;
  clear(): void;
}

export function useAction<A extends unknown[]>(operation: (...args: A) => Promise<unknown>): Action<A> {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<unknown>(undefined);
  const latest = useRef(operation);
  latest.current = operation;
  const run = useCallback(async (...args: A) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await latest.current(...args);
      return true;
    } catch (error) {
      setProblem(error);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  const clear = useCallback(() => setProblem(undefined), []);
  return { busy, problem, run, clear };
}

let nextId = 0;
/** A stable id for tying a control to its description or error. */
export function useId(prefix: string): string {
  const ref = useRef<string | undefined>(undefined);
  if (ref.current === undefined) {
    nextId += 1;
    ref.current = `${prefix}-${nextId}`;
  }
  return ref.current;
}

/**
 * Calls `tick` every `ms` while `enabled` and the page is visible: nothing runs in a hidden tab, and coming back
 * to it ticks at once, so what it shows is fresh again without waiting a whole period.
 */
export function useVisibleInterval(tick: () => void, ms: number, enabled: boolean): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!enabled) return;
    let timer: ReturnType<typeof setInterval> | undefined;
    const start = () => {
      if (timer === undefined && document.visibilityState === 'visible') timer = setInterval(() => latest.current(), ms);
    };
    const stop = () => {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    };
    const onVisibility = () => {
      if (document.visibilityState !== 'visible') return stop();
      latest.current();
      start();
    };
    start();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stop();
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [ms, enabled]);
}
