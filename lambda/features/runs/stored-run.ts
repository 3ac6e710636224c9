import type { RunItem } from '../../table/item-types';
import type { StoredRun } from '../../table/runs';
import type { RunRecord, SentMessage } from './run-record';

/**
 * A run as its item keeps it, and back. An item holds at most 400 KB: a prompt may be 300 KB and its variables
 * more, so what is kept of a long run is cut, each message to MAX_KEPT_MESSAGE characters and each variable to
 * MAX_KEPT_VARIABLE, with what was cut said at the end of it. What a run answers when it ends is never cut.
 */
export const MAX_KEPT_MESSAGE = 100_000;
export const MAX_KEPT_VARIABLE = 10_000;
/** Past this much JSON, the variables are cut too (the output is at most 8,192 tokens). */
const MAX_KEPT_RUN = 60_000;

const cut = (text: string, max: number): string => {
  const characters = [...text];
  return characters.length <= max ? text : `${characters.slice(0, max).join('')}…[${characters.length - max} more characters not kept]`;
};

export function storedRun(run: RunRecord): StoredRun {
  const { messages, ...rest } = run;
  let text = JSON.stringify(rest);
  if (text.length > MAX_KEPT_RUN) {
    const variables: Record<string, string> = Object.create(null);
    for (const [name, value] of Object.entries(run.variables)) variables[name] = cut(value, MAX_KEPT_VARIABLE);
    text = JSON.stringify({ ...rest, variables });
  }
  return {
    runId: run.runId,
    promptId: run.promptId ?? undefined,
    at: run.at,
    run: text,
    messages: JSON.stringify(messages.map((message) => ({ role: message.role, content: cut(message.content, MAX_KEPT_MESSAGE) }))),
  };
}

/** A run as kept; with its messages, or (a list's) without them. */
export function runFromItem(item: Pick<RunItem, 'run'> & Partial<Pick<RunItem, 'messages'>>): RunRecord | Omit<RunRecord, 'messages'> {
  // Written by storedRun alone, from a RunRecord: JSON.parse keeps every name as data (`__proto__` included).
  const run: Omit<RunRecord, 'messages'> = JSON.parse(item.run);
  if (item.messages === undefined) return run;
  const messages: SentMessage[] = JSON.parse(item.messages);
  return withMessagesOrder(run, messages);
}

/** The answer's field order: messages after variables, as a run is answered when it ends. */
function withMessagesOrder(run: Omit<RunRecord, 'messages'>, messages: SentMessage[]): RunRecord {
  const { output, schema, usage, costUsd, latencyMs, firstTokenMs, stopReason, attempts, state, error, by, at, ...head } = run;
  return { ...head, messages, output, schema, usage, costUsd, latencyMs, firstTokenMs, stopReason, attempts, state, error, by, at };
}
