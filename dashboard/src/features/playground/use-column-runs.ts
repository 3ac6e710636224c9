import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Run, RunRequest } from '../../api/types';
import { ApiProblem } from '../../logic/api-errors';
import { useWorkspace } from '../../workspace';

/** Where one column's run is: its text as it arrives, then the run as kept, or why there is none. */
export interface ColumnRun {
  readonly phase: 'idle' | 'waiting' | 'streaming' | 'ended' | 'failed' | 'stopped';
  readonly text: string;
  readonly runId?: string;
  readonly model?: string;
  readonly run?: Run;
  /** A refusal or a failure, in the ApiProblem every page says in words. */
  readonly problem?: unknown;
}

export const IDLE: ColumnRun = { phase: 'idle', text: '' };

export const isRunning = (run: ColumnRun | undefined): boolean => run?.phase === 'waiting' || run?.phase === 'streaming';

/**
 * The runs of the Playground's columns, by column id: each streamed on its own connection, each stoppable, all
 * stopped when the page goes. `onSettled` hears each column's end (to say it, and to list the new run).
 */
export function useColumnRuns(onSettled: (columnId: string, run: ColumnRun) => void) {
  const { api, account } = useWorkspace();
  const [runs, setRuns] = useState<ReadonlyMap<string, ColumnRun>>(new Map());
  const controllers = useRef(new Map<string, AbortController>());
  const settled = useRef(onSettled);
  settled.current = onSettled;

  useEffect(() => {
    const open = controllers.current;
    return () => {
      for (const controller of open.values()) controller.abort();
      open.clear();
    };
  }, []);

  const update = useCallback((columnId: string, change: (run: ColumnRun) => ColumnRun) => {
    setRuns((previous) => new Map(previous).set(columnId, change(previous.get(columnId) ?? IDLE)));
  }, []);

  const start = useCallback(
    async (columnId: string, body: RunRequest) => {
      controllers.current.get(columnId)?.abort();
      const controller = new AbortController();
      controllers.current.set(columnId, controller);
      update(columnId, () => ({ phase: 'waiting', text: '' }));
      const finish = (run: ColumnRun) => {
        if (controllers.current.get(columnId) !== controller) return;
        controllers.current.delete(columnId);
        update(columnId, () => run);
        settled.current(columnId, run);
      };
      let text = '';
      try {
        const outcome = await api.runStream(
          account.accountId,
          body,
          {
            onStart: (started) => update(columnId, (run) => ({ ...run, runId: started.runId, model: started.model })),
            onDelta: (piece) => {
              text += piece;
              update(columnId, (run) => ({ ...run, phase: 'streaming', text }));
            },
          },
          controller.signal,
        );
        if (outcome.kind === 'ended')
          finish({ phase: 'ended', text: outcome.run.output.text, runId: outcome.run.runId, model: outcome.run.model, run: outcome.run });
        else if (outcome.kind === 'failed')
          finish({
            phase: 'failed',
            text: outcome.run?.output.text ?? text,
            ...(outcome.run ? { runId: outcome.run.runId, model: outcome.run.model, run: outcome.run } : {}),
            problem: new ApiProblem(0, outcome.error.code, outcome.error.message),
          });
        else finish({ phase: 'stopped', text });
      } catch (problem) {
        finish({ phase: 'failed', text, problem });
      }
    },
    [api, account.accountId, update],
  );

  const stop = useCallback((columnId: string) => controllers.current.get(columnId)?.abort(), []);

  /** A column removed: its run stopped and forgotten. */
  const forget = useCallback((columnId: string) => {
    controllers.current.get(columnId)?.abort();
    controllers.current.delete(columnId);
    setRuns((previous) => {
      const next = new Map(previous);
      next.delete(columnId);
      return next;
    });
  }, []);

  return { runs, start, stop, forget };
}
