/** How a label's history names the way each move was made (its entry's `reason`, table/label-history.ts). */

/**
 * What a move's history says when the mover gave a note, asked for a restore (of a past version, from the
 * history), or broke the glass (the operator's move of a label under approval: features/change-requests/approval-gate.ts).
 */
export function moveReason(options: {
  readonly note?: string | undefined;
  readonly restore?: boolean | undefined;
  readonly breakGlass?: boolean | undefined;
}): string | null {
  const way = options.breakGlass === true ? BREAK_GLASS_REASON : options.restore === true ? 'restore' : undefined;
  if (way !== undefined) return options.note === undefined ? way : `${way}: ${options.note}`;
  return options.note ?? null;
}

/** What the operator's move of a label under approval, made without its request, says. */
export const BREAK_GLASS_REASON = 'break-glass';

/** What a move made by `prompts push` says. */
export const PUSH_REASON = 'push';

export const changeRequestReason = (requestId: string): string => `request ${requestId}`;

export const rolloutReason = (rolloutId: string): string => `rollout ${rolloutId}`;
