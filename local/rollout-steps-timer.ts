import { type AutomationDependencies, applyDueSteps } from '../lambda/rollout-automation/automation';

/**
 * `npm start`'s stand-in for the deployed scheduled function (lib/rollout-automation.ts): the same applyDueSteps, on a
 * timer. A guard alarm has no local stand-in (docs/rollouts.md).
 */

/** How often `npm start` looks for due steps: a step is due at a whole minute, so it lands within 15 s of it. */
export const LOCAL_STEPS_INTERVAL_MS = 15_000;

export interface Repeating {
  /** No run starts after this; resolves once the run under way, if any, has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `run` every `intervalMs`, counted from the end of the run before: a slow run (a store that takes its time)
 * delays the next, never overlaps it. A run that fails is reported and the next one comes as usual.
 */
export function repeatWithoutOverlap(run: () => Promise<void>, intervalMs: number, onError: (error: unknown) => void): Repeating {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const schedule = () => {
    timer = setTimeout(() => {
      running = run()
        .catch(onError)
        .finally(() => {
          running = undefined;
          if (!stopped) schedule();
        });
    }, intervalMs);
    // The servers keep the process alive; this timer alone never should.
    timer.unref();
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** Applies due steps of every rollout in the local store every `intervalMs`; each change is logged by applyDueSteps. */
export function startRolloutSteps(
  deps: AutomationDependencies,
  { intervalMs = LOCAL_STEPS_INTERVAL_MS, onError }: { readonly intervalMs?: number; readonly onError: (error: unknown) => void },
): Repeating {
  return repeatWithoutOverlap(
    async () => {
      await applyDueSteps(deps, deps.table.now());
    },
    intervalMs,
    onError,
  );
}
