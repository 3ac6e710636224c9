import * as z from 'zod/mini';
import { CHANGE_REQUEST_ID_PATTERN, CHANGE_REQUEST_STATES } from '../../domain/change-request';
import { ROLES } from '../../domain/roles';
import { contract, described, named } from '../contract';
import { Note, Percent, PromptConfigAnswer, RolloutSteps } from '../fields';

/** Change requests (docs/management-api.md "Change requests"): read, approved, rejected and withdrawn. */

export const ChangeRequestId = z
  .string()
  .check(z.regex(CHANGE_REQUEST_ID_PATTERN, { error: 'must be a change request id, as the requests list shows it (req_...)' }));

/** Approving or rejecting a change request: an optional comment (an empty body is `{}`). */
export const DecisionBody = named('Decision', z.strictObject({ comment: z.optional(Note) }));

/** The requests list's query: one state, and the cursor of the page before. */
const ChangeRequestQuery = z.object({
  state: z.optional(
    described(
      '`open`, `applied`, `rejected`, `withdrawn` or `stale`; all when absent',
      z.enum(CHANGE_REQUEST_STATES, { error: `must be one of ${CHANGE_REQUEST_STATES.join(', ')}` }),
    ),
  ),
  before: z.optional(described('The cursor `next` of the previous page', ChangeRequestId)),
});

const Approval = z.strictObject({
  by: z.string(),
  at: z.string(),
  comment: z.nullable(z.string()),
  counts: described('Whether it counts toward `required`: now, while the request is open; when it closed, once closed', z.boolean()),
  role: described("The approver's role in the account (now, or when the request closed); null: not a member", z.nullable(z.enum(ROLES))),
  why: described(
    'Why it does not count, as what the approver is (`a viewer, and approving a change of production needs the admin role`, `not a member of the account`); null when it counts',
    z.nullable(z.string()),
  ),
});

export const ChangeRequestAnswer = named(
  'ChangeRequest',
  z.strictObject({
    requestId: z.string(),
    promptId: z.string(),
    label: z.string(),
    from: described('Where the label pointed when asked; null: nowhere', z.nullable(z.string())),
    to: described('Where it would point; null: the label removed', z.nullable(z.string())),
    note: z.nullable(z.string()),
    restore: described('Asked as a restore of a past version', z.boolean()),
    requestedBy: described("The requester's email, or `cli:<operator>` (a push)", z.string()),
    requestedAt: z.string(),
    required: described('Distinct approvals it needs (the account setting when asked)', z.int()),
    approvals: described(
      'Every approval given, in order. An approval counts while its giver may still give it: a member whose role may approve a change of the label now (protected labels: admins). One from someone demoted or removed since stays listed, not counting, and counts again if they get the role back while the request is open; once the request closes, each approval keeps how it stood then',
      z.array(Approval),
    ),
    state: z.enum(CHANGE_REQUEST_STATES),
    decision: described(
      'Who took it out of open: the approver who applied it or found it stale, the rejecter, or the requester who withdrew it',
      z.nullable(z.strictObject({ by: z.string(), at: z.string(), comment: z.nullable(z.string()) })),
    ),
    rollout: z.optional(
      described(
        'On a request to start a rollout to `to` rather than move the label: the approval that applies it starts the rollout',
        z.strictObject({ percent: Percent, steps: RolloutSteps, guardAlarm: z.nullable(z.string()) }),
      ),
    ),
  }),
);

/** A change request opened or decided: what label moves under approval answer (202), and each decision (200). */
export const ChangeRequestEnvelope = named('ChangeRequestAnswer', z.strictObject({ request: ChangeRequestAnswer }));

const ChangeRequestList = named(
  'ChangeRequestList',
  z.strictObject({
    requests: z.array(ChangeRequestAnswer),
    next: z.optional(described('Pass as `before` for the next page; absent on the last', z.string())),
  }),
);

const ChangeRequestSide = named(
  'ChangeRequestSide',
  z.strictObject({ version: z.string(), systemMessage: z.string(), userMessage: z.string(), config: PromptConfigAnswer }),
);

const ChangeRequestDetail = named(
  'ChangeRequestDetail',
  z.strictObject({
    request: ChangeRequestAnswer,
    fromVersion: z.nullable(ChangeRequestSide),
    toVersion: z.nullable(ChangeRequestSide),
    placeholders: described(
      'Placeholders (`${name}`) of the messages the move adds and takes away',
      z.strictObject({ added: z.array(z.string()), removed: z.array(z.string()) }),
    ),
  }),
);

const REQUEST = '/api/accounts/{accountId}/requests/{requestId}';

export const listChangeRequests = contract({
  method: 'GET',
  path: '/api/accounts/{accountId}/requests',
  summary: 'Change requests, newest first',
  description: 'Every open one with `state=open`; otherwise 50 a page.',
  query: ChangeRequestQuery,
  answers: { 200: ChangeRequestList },
});

export const readChangeRequest = contract({
  method: 'GET',
  path: REQUEST,
  summary: 'A change request with what a reviewer compares',
  description: "Both versions' content, and the placeholders the move adds and takes away.",
  answers: { 200: ChangeRequestDetail },
});

export const approveChangeRequest = contract({
  method: 'POST',
  path: `${REQUEST}/approve`,
  summary: 'Approve a change request',
  description:
    'By a member who may move the label, not the requester. The approval that brings the required-th counting one (from members who may still approve) moves the label, or, if it moved since, marks the request stale (409). Approving again is 409, unless the approvals that count are then enough.',
  body: DecisionBody,
  bodyOptional: true,
  answers: { 200: ChangeRequestEnvelope },
  refusals: [409],
});

export const rejectChangeRequest = contract({
  method: 'POST',
  path: `${REQUEST}/reject`,
  summary: 'Reject a change request',
  description: 'By a member who may move the label, not the requester.',
  body: DecisionBody,
  bodyOptional: true,
  answers: { 200: ChangeRequestEnvelope },
  refusals: [409],
});

export const withdrawChangeRequest = contract({
  method: 'POST',
  path: `${REQUEST}/withdraw`,
  summary: 'Withdraw a change request',
  description: 'By the requester only.',
  answers: { 200: ChangeRequestEnvelope },
  refusals: [409],
});
