import type { LabelHistoryEntry } from '../../api/types';

/** A label's history in words: each move, how it moved, and where it can go back to. */

/** One position of a label's history, as the API lists it (newest first): its route's contract. */
export type { LabelHistoryEntry };

/** What the move did: `1.0.1 to 1.0.2`, `set to 1.0.0`, `removed (was 1.0.2)`. */
export function historyMove(entry: Pick<LabelHistoryEntry, 'from' | 'to'>): string {
  if (entry.to === null) return entry.from ? `removed (was ${entry.from})` : 'removed';
  if (entry.from === null) return `set to ${entry.to}`;
  return `${entry.from} to ${entry.to}`;
}

/**
 * Whether the label can go back to where this entry put it: only to a version (not to a removal), and only when
 * the label is not there already.
 */
export function restoreTarget(entry: Pick<LabelHistoryEntry, 'to'>, current: string | undefined): string | undefined {
  if (entry.to === null || entry.to === current) return undefined;
  return entry.to;
}

/**
 * A history entry's reason in words: the mover's note, or how it moved (`restore`, `restore: <note>`,
 * `request <id>` for a move a change request applied, `push`, `import`); the request named, to link to it.
 */
export function historyReason(reason: string | null | undefined): { readonly text: string; readonly requestId?: string } | undefined {
  if (!reason) return undefined;
  const request = /^request (req_[A-Za-z0-9_]+)$/.exec(reason);
  if (request?.[1]) return { text: 'through a change request', requestId: request[1] };
  if (reason === 'restore') return { text: 'restored from the history' };
  if (reason.startsWith('restore: ')) return { text: `restored: ${reason.slice('restore: '.length)}` };
  if (reason === 'push') return { text: 'pushed from a prompts folder (CLI)' };
  if (reason === 'break-glass') return { text: 'moved by an operator without its change request (break-glass)' };
  if (reason.startsWith('break-glass: '))
    return { text: `moved by an operator without its change request (break-glass): ${reason.slice('break-glass: '.length)}` };
  if (reason === 'import') return { text: 'imported' };
  return { text: reason };
}
