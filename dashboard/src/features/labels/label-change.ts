import type { AccountSettings, ChangeRequest, Rollout } from '../../api/types';
import { percentText } from '../rollouts/rollouts';

/**
 * A change of one label from the prompt's page, which the account's approvals may turn into a change request
 * (202) instead of making it (200). Every door of the page that changes a label sends one of these through
 * useLabelMove, so each is asked, sent and said the same way.
 */
export type LabelChange =
  /** From the label's row: to another published version. */
  | { readonly kind: 'move'; readonly to: string }
  /** From the form that points a label, new or not, at a version. */
  | { readonly kind: 'point'; readonly to: string }
  /** Back to a version the label's history says it pointed at. */
  | { readonly kind: 'restore'; readonly to: string }
  /** The label taken off the prompt. */
  | { readonly kind: 'remove' }
  /** A rollout: a share of subjects gets `to` first, the others stay where the label is. */
  | { readonly kind: 'rollout'; readonly to: string; readonly percent: number };

/** The labels only admins and owners move: the account's, or the API's default until the settings are read. */
export const protectedLabelsOf = (settings: Pick<AccountSettings, 'protectedLabels'> | undefined): readonly string[] =>
  settings?.protectedLabels ?? ['production'];

/** What the API made of a change: made at once (a started rollout with it), or a change request opened for others to approve. */
export type LabelChangeAnswer = { readonly kind: 'done'; readonly rollout?: Rollout } | { readonly kind: 'requested'; readonly request: ChangeRequest };

/** Whether the change is confirmed first where the label is protected or under approval: a removal has no versions to compare. */
export const asksFirst = (change: LabelChange, isProtected: boolean, approvals: number | undefined): boolean =>
  change.kind !== 'remove' && (isProtected || approvals !== undefined);

/** What the page's live region says once the API answered. */
export function answerText(label: string, change: LabelChange, answer: LabelChangeAnswer): string {
  if (answer.kind === 'requested') {
    switch (change.kind) {
      case 'move':
        return `A change request was opened to move ${label} to ${change.to}.`;
      case 'point':
        return `A change request was opened to point ${label} at ${change.to}.`;
      case 'restore':
        return `A change request was opened to restore ${label} to ${change.to}.`;
      case 'remove':
        return `A change request was opened to remove ${label}.`;
      case 'rollout':
        return `A change request was opened to roll ${label} out to ${answer.request.to ?? change.to}.`;
    }
  }
  switch (change.kind) {
    case 'move':
    case 'point':
      return `${label} now points at ${change.to}.`;
    case 'restore':
      return `${label} restored to ${change.to}.`;
    case 'remove':
      return `${label} removed.`;
    case 'rollout': {
      const started = answer.rollout ?? change;
      return `The rollout of ${label} to ${started.to} started at ${percentText(started.percent)}.`;
    }
  }
}

/** The confirmation's title and its button, in the words of the change: `Move production from 1.0.0 to 1.0.1?`, `Yes, ask to restore production to 1.0.0`. */
export function moveDialogText(
  label: string,
  change: Extract<LabelChange, { readonly to: string }>,
  from: string | undefined,
  approvals: number | undefined,
): { readonly title: string; readonly confirm: string; readonly doing: string } {
  const restore = change.kind === 'restore';
  const verb = restore ? 'restore' : 'move';
  const title = restore ? `Restore ${label} to ${change.to}?` : from ? `Move ${label} from ${from} to ${change.to}?` : `Point ${label} at ${change.to}?`;
  return {
    title,
    confirm: approvals !== undefined ? `Yes, ask to ${verb} ${label} to ${change.to}` : `Yes, ${verb} ${label} to ${change.to}`,
    doing: restore ? `Restoring ${label}` : `Moving ${label}`,
  };
}
