import { CHANGE_REQUEST_STATES, type ChangeRequestState } from '../../../../lambda/domain/change-request';
import type { ChangeRequest } from '../../api/types';
import { atLeast, type Role, roleForLabel } from '../../../../lambda/domain/roles';
import { percentText } from '../rollouts/rollouts';

/**
 * Change requests (a label move that the account's approvals cover), in words for the person: each state's name
 * and what it means, and who may decide. The API decides; this only explains, the same way for every page.
 */

export { CHANGE_REQUEST_STATES, type ChangeRequestState };

/** A change request as the API answers it (its routes' contract), and one of its approvals. */
export type { ChangeRequest };
export type Approval = ChangeRequest['approvals'][number];
/** What a request that starts a rollout carries of it. */
export type ChangeRequestRollout = NonNullable<ChangeRequest['rollout']>;

/** Each state as a badge says it. */
export const STATE_WORDS: Readonly<Record<ChangeRequestState, string>> = {
  open: 'open',
  applied: 'applied',
  rejected: 'rejected',
  withdrawn: 'withdrawn',
  stale: 'stale',
};

export const stateWord = (state: string): string => (Object.hasOwn(STATE_WORDS, state) ? STATE_WORDS[state as ChangeRequestState] : state);

/** The filter choices of the Requests page: a state, or all of them. */
export const STATE_FILTERS: readonly { readonly value: ChangeRequestState | ''; readonly text: string }[] = [
  { value: 'open', text: 'Open' },
  { value: 'applied', text: 'Applied' },
  { value: 'rejected', text: 'Rejected' },
  { value: 'withdrawn', text: 'Withdrawn' },
  { value: 'stale', text: 'Stale' },
  { value: '', text: 'All' },
];

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** What the request asks, in a phrase: `move production of welcome from 1.0.1 to 1.0.2`, `restore ...`, `remove ...`. */
export function changeRequestSummary(request: Pick<ChangeRequest, 'label' | 'promptId' | 'from' | 'to' | 'restore' | 'rollout'>): string {
  const what = `${request.label} of ${request.promptId}`;
  if (request.rollout && request.to !== null) {
    return `roll out ${what}${request.from ? ` from ${request.from}` : ''} to ${request.to} for ${percentText(request.rollout.percent)}`;
  }
  if (request.to === null) return `remove ${what}${request.from ? ` (at ${request.from})` : ''}`;
  return `${request.restore ? 'restore' : 'move'} ${what}${request.from ? ` from ${request.from}` : ''} to ${request.to}`;
}

/** The request as a page's title: `Move production of welcome from 1.0.1 to 1.0.2`. */
export function changeRequestTitle(request: Pick<ChangeRequest, 'label' | 'promptId' | 'from' | 'to' | 'restore' | 'rollout'>): string {
  const summary = changeRequestSummary(request);
  return `${summary[0]?.toUpperCase()}${summary.slice(1)}`;
}

const counts = (approval: Approval): boolean => approval.counts !== false;

/**
 * Approvals that count against those needed: `1 of 2 approvals`, or `1 approval` when the number needed is not known;
 * with those given that do not count said apart (`0 of 2 approvals, 1 not counting`).
 */
export function approvalCount(request: Pick<ChangeRequest, 'approvals' | 'required'>): string {
  const counting = request.approvals.filter(counts).length;
  const notCounting = request.approvals.length - counting;
  const count = request.required === undefined ? plural(counting, 'approval') : `${counting} of ${plural(request.required, 'approval')}`;
  return notCounting === 0 ? count : `${count}, ${notCounting} not counting`;
}

/**
 * Whether one approval counts, in words: while the request is open, as its giver's role is now; once it closed, as
 * it stood then (`Does not count now: bob@example.com is a viewer, and approving a change of production needs the admin role.`).
 */
export function approvalStandingText(approval: Approval, state: string): string {
  const open = state === 'open';
  if (counts(approval)) return open ? 'Counts.' : 'Counted.';
  const why = approval.why ?? 'no longer allowed to approve it';
  return open ? `Does not count now: ${approval.by} is ${why}.` : `Did not count: ${approval.by} was ${why}.`;
}

/**
 * What the state means for the label, in a sentence or two; for a stale one, why nothing moved and what to do.
 * `current` is where the label points now, when the page knows (undefined: not known; null: nowhere).
 */
export function stateExplanation(request: ChangeRequest, current?: string | null): string {
  const { label, promptId, to } = request;
  const decision = request.decision ?? undefined;
  const by = decision?.by ? ` by ${decision.by}` : '';
  const said = decision?.comment ? ` They said: "${decision.comment}"` : '';
  const target =
    to === null
      ? `${label} of ${promptId} is removed`
      : request.rollout
        ? `The rollout of ${label} of ${promptId} to ${to} starts at ${percentText(request.rollout.percent)}`
        : `${label} of ${promptId} moves to ${to}`;
  switch (request.state) {
    case 'open': {
      if (request.required === undefined) return `Waiting for approval. ${target} once enough people approve.`;
      const left = Math.max(0, request.required - request.approvals.filter(counts).length);
      return `Waiting for ${plural(left, 'more approval')} (${approvalCount(request)}). ${target} once enough people approve.`;
    }
    case 'applied':
      if (request.rollout && to !== null) {
        return `Approved and applied: the rollout of ${label} of ${promptId} to ${to} started at ${percentText(request.rollout.percent)}; ${label} stays on ${request.from ?? 'its version'} for the others until the rollout is completed.`;
      }
      return to === null
        ? `Approved and applied: ${label} is off ${promptId}, and the read API answers 404 for ?label=${label} from the next request.`
        : `Approved and applied: ${label} of ${promptId} points at ${to}, and the read API serves it from the next request.`;
    case 'rejected':
      return `Rejected${by}: ${label} did not move.${said}`;
    case 'withdrawn':
      return `Withdrawn${by} before it was decided: ${label} did not move.`;
    case 'stale': {
      const now = current === undefined ? '' : current === null ? ' (it points at no version now)' : ` (to ${current})`;
      const was = request.from ? `, so it no longer points at ${request.from}` : ', so it is no longer unset';
      const again = to === null ? `To still remove it, ask again.` : `To still move it to ${to}, ask again from where ${label} is now.`;
      return `Stale: ${label} moved${now} after this was asked${was}, and this change was not applied. Nothing moved. ${again}`;
    }
    default:
      return `This request is ${request.state}.`;
  }
}

/** Who the signed-in person is, as requests name people (by email, or by user id). */
export interface Person {
  readonly userId: string;
  readonly email: string;
}

export const isPerson = (name: string | null | undefined, person: Person): boolean =>
  typeof name === 'string' && (name === person.userId || name.toLowerCase() === person.email.toLowerCase());

/** Why `person` (with `role`) may not approve or reject the request; undefined when they may. */
export function decisionDenial(request: ChangeRequest, person: Person, role: Role, protectedLabels: readonly string[]): string | undefined {
  if (request.state !== 'open') return `This request is ${stateWord(request.state)}: there is nothing left to decide.`;
  if (isPerson(request.requestedBy, person)) return 'You asked for this change: someone else approves or rejects it.';
  const needed = roleForLabel(request.label, protectedLabels);
  if (!atLeast(role, needed)) return `Only those who may move ${request.label} (${needed}s and above) approve or reject its requests.`;
  return undefined;
}

/** Whether the approvals that count are as many as it needs: then another approval (even a renewed one) applies it. */
export const enoughCounting = (request: Pick<ChangeRequest, 'approvals' | 'required'>): boolean =>
  request.required !== undefined && request.approvals.filter(counts).length >= request.required;

/** Whether the person already approved it (an approval counts once). */
export const hasApproved = (request: ChangeRequest, person: Person): boolean => request.approvals.some((approval) => isPerson(approval.by, person));

/** Why `person` may not withdraw the request; undefined when they may. */
export function withdrawDenial(request: ChangeRequest, person: Person): string | undefined {
  if (request.state !== 'open') return `This request is ${stateWord(request.state)}: it can no longer be withdrawn.`;
  if (!isPerson(request.requestedBy, person)) return `Only ${request.requestedBy}, who asked for it, can withdraw it.`;
  return undefined;
}

/** The navigation's name for the Requests item: its text, and the number open for a screen reader as well. */
export function changeRequestsNavName(open: number | undefined): string {
  if (open === undefined || open === 0) return 'Requests';
  return `Requests, ${open} open`;
}
