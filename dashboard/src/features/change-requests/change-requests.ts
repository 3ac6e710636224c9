import { atLeast, type Role, roleForLabel } from '../../../../lambda/domain/roles';
import { placeholdersIn } from '../../logic/placeholders';
import { type HistoryRollout, percentText } from '../rollouts/rollouts';

/**
 * Change requests (a label move that the account's approvals cover) and label history, in words for the
 * person: each state's name and what it means, who may decide, and what a move does to the variables callers
 * fill. The API decides; this only explains, the same way for every page.
 */

export const REQUEST_STATES = ['open', 'applied', 'rejected', 'withdrawn', 'stale'] as const;
export type RequestState = (typeof REQUEST_STATES)[number];

export interface Approval {
  readonly by: string;
  readonly at: string;
  readonly comment?: string | null;
  /**
   * Whether it counts toward `required`: its giver may still approve (now, while the request is open; as it stood
   * when it closed, once closed). Absent: counted, as an answer from before the API said.
   */
  readonly counts?: boolean;
  /** Why it does not count: what its giver is (`a viewer, and approving a change of production needs the admin role`). */
  readonly why?: string | null;
}

export interface ChangeRequest {
  readonly requestId: string;
  readonly promptId: string;
  readonly label: string;
  readonly from: string | null;
  /** null: a request to take the label off. */
  readonly to: string | null;
  readonly note?: string | null;
  /** A move back to a version from the label's history. */
  readonly restore?: boolean;
  /** A rollout to start once approved (docs/rollouts.md): the label then rolls out to `to` for this share instead of moving. */
  readonly rollout?: RequestRollout | null;
  readonly requestedBy: string;
  readonly requestedAt: string;
  readonly approvals: readonly Approval[];
  readonly state: RequestState | string;
  /** How many approvals it needs (the account's setting when it was asked). */
  readonly required?: number;
  /** Who took it out of `open` (the approver who applied it or found it stale, the rejecter, the requester), when, and their comment. */
  readonly decision?: { readonly by: string; readonly at: string; readonly comment?: string | null } | null;
}

/** What a request that starts a rollout carries of it. */
export interface RequestRollout {
  readonly percent: number;
  readonly steps?: readonly { readonly percent: number; readonly afterMinutes: number }[] | null;
  readonly guardAlarm?: string | null;
}

/** Each state as a badge says it. */
export const STATE_WORDS: Readonly<Record<RequestState, string>> = {
  open: 'open',
  applied: 'applied',
  rejected: 'rejected',
  withdrawn: 'withdrawn',
  stale: 'stale',
};

export const stateWord = (state: string): string => (Object.hasOwn(STATE_WORDS, state) ? STATE_WORDS[state as RequestState] : state);

/** The filter choices of the Requests page: a state, or all of them. */
export const STATE_FILTERS: readonly { readonly value: RequestState | ''; readonly text: string }[] = [
  { value: 'open', text: 'Open' },
  { value: 'applied', text: 'Applied' },
  { value: 'rejected', text: 'Rejected' },
  { value: 'withdrawn', text: 'Withdrawn' },
  { value: 'stale', text: 'Stale' },
  { value: '', text: 'All' },
];

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** What the request asks, in a phrase: `move production of welcome from 1.0.1 to 1.0.2`, `restore ...`, `remove ...`. */
export function requestSummary(request: Pick<ChangeRequest, 'label' | 'promptId' | 'from' | 'to' | 'restore' | 'rollout'>): string {
  const what = `${request.label} of ${request.promptId}`;
  if (request.rollout && request.to !== null) {
    return `roll out ${what}${request.from ? ` from ${request.from}` : ''} to ${request.to} for ${percentText(request.rollout.percent)}`;
  }
  if (request.to === null) return `remove ${what}${request.from ? ` (at ${request.from})` : ''}`;
  return `${request.restore ? 'restore' : 'move'} ${what}${request.from ? ` from ${request.from}` : ''} to ${request.to}`;
}

/** The request as a page's title: `Move production of welcome from 1.0.1 to 1.0.2`. */
export function requestTitle(request: Pick<ChangeRequest, 'label' | 'promptId' | 'from' | 'to' | 'restore' | 'rollout'>): string {
  const summary = requestSummary(request);
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
export function requestsNavName(open: number | undefined): string {
  if (open === undefined || open === 0) return 'Requests';
  return `Requests, ${open} open`;
}

/** The variables one version needs that the other does not. */
export interface PlaceholderChange {
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

interface Messages {
  readonly systemMessage: string;
  readonly userMessage: string;
}

/** The variables added and removed from `before` (none: a label that pointed nowhere) to `after`, as the client's parser reads them. */
export function placeholderChange(before: Messages | undefined, after: Messages): PlaceholderChange {
  const old = before ? placeholdersIn(before.systemMessage, before.userMessage) : [];
  const now = placeholdersIn(after.systemMessage, after.userMessage);
  return { added: now.filter((name) => !old.includes(name)), removed: old.filter((name) => !now.includes(name)) };
}

const variable = (name: string) => `\${${name}}`;

function listed(names: readonly string[]): string {
  const shown = names.map(variable);
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

/**
 * The plain warnings about a change's variables: a variable the new version needs and the old did not is a
 * failure for every caller that fills only the old ones (the client refuses to compile, or the model gets the
 * gap); one no longer used is harmless, but worth knowing. Empty when the variables are the same.
 */
export function placeholderWarnings(change: PlaceholderChange, hadBefore = true): { readonly added?: string; readonly removed?: string } {
  return {
    ...(change.added.length === 0
      ? {}
      : {
          added: hadBefore
            ? `Callers that fill only the old variables will miss ${listed(change.added)}.`
            : `Callers must fill ${listed(change.added)}: the label pointed at no version before.`,
        }),
    ...(change.removed.length === 0
      ? {}
      : {
          removed: `${listed(change.removed)} ${change.removed.length === 1 ? 'is' : 'are'} no longer used: a value sent for ${change.removed.length === 1 ? 'it' : 'them'} is ignored (compile with strict: true refuses ${change.removed.length === 1 ? 'it' : 'them'}).`,
        }),
  };
}

/** One position of a label's history, as the API lists it (newest first). */
export interface LabelHistoryEntry {
  readonly at: string;
  readonly by: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly reason?: string | null;
  /** Present on the entries a rollout wrote: started, its share changed, completed, aborted. */
  readonly rollout?: HistoryRollout | null;
}

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

/** The approval settings as the owners' form holds them, checked before sending. */
export function approvalLabelsFromText(text: string): string[] {
  return Array.from(
    new Set(
      text
        .split(/[\s,]+/)
        .map((label) => label.trim())
        .filter(Boolean),
    ),
  );
}

export const LABEL_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

export function approvalSettingsProblem(labels: readonly string[], required: number): { field: 'labels' | 'required'; message: string } | undefined {
  const wrong = labels.filter((label) => !LABEL_PATTERN.test(label));
  if (wrong.length > 0) {
    return { field: 'labels', message: `${wrong.join(', ')}: a label is 1 to 32 characters, a to z, 0 to 9, - and _, starting with a letter.` };
  }
  if (!Number.isInteger(required) || required < 1 || required > 5) return { field: 'required', message: 'Between 1 and 5 approvals.' };
  return undefined;
}

/** How many approvals a move of `label` needs in the account; undefined when it moves at once. */
export function approvalsNeeded(
  approvals: { readonly labels: readonly string[]; readonly required: number } | null | undefined,
  label: string,
): number | undefined {
  if (!approvals?.labels.includes(label)) return undefined;
  return approvals.required;
}
