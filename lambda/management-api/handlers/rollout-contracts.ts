import * as z from 'zod/mini';
import { ROLLOUT_ID_PATTERN } from '../../domain/rollout';
import { ALARM_NAME_RULE, isAlarmName } from '../../domain/rollout-rules';
import { contract, described, named } from '../contract';
import { Note, Percent, RolloutSteps, Version } from '../fields';
import { ChangeRequestEnvelope } from './change-request-contracts';

/** A label's rollout (docs/rollouts.md "Managing a rollout (management API)"): started, read, changed, completed, aborted. */

/** Starting a rollout (docs/rollouts.md): the version it moves the label to, the share that gets it, and optionally a note, steps and a guard alarm. */
export const RolloutStartBody = named(
  'RolloutStart',
  z.strictObject({
    to: Version,
    percent: Percent,
    note: z.optional(Note),
    steps: z.optional(RolloutSteps),
    guardAlarm: z.optional(z.string({ error: `must be ${ALARM_NAME_RULE}` }).check(z.refine(isAlarmName, { error: `must be ${ALARM_NAME_RULE}` }))),
  }),
);

/**
 * The rollout a change is meant for, as the rollout's answers name it: given and not the label's rollout now (it
 * ended, and maybe another began), the change is refused (409) and nothing changes; absent, the label's rollout.
 */
const MeantRollout = z
  .string({ error: 'must be a rollout id: ro_, 17 digits, _ and 8 hex digits' })
  .check(z.regex(ROLLOUT_ID_PATTERN, { error: 'must be a rollout id: ro_, 17 digits, _ and 8 hex digits' }));

/** A rollout's new share, and optionally a new schedule (without, the steps still above the new share stay) and the rollout meant. */
export const RolloutChangeBody = named(
  'RolloutChange',
  z.strictObject({ percent: Percent, steps: z.optional(RolloutSteps), rolloutId: z.optional(MeantRollout) }),
);

/** Completing a rollout: optionally, the rollout meant (an empty body is `{}`). */
export const RolloutCompleteBody = named('RolloutComplete', z.strictObject({ rolloutId: z.optional(MeantRollout) }));

/** Aborting a rollout: an optional reason and the rollout meant (an empty body is `{}`). */
export const RolloutAbortBody = named('RolloutAbort', z.strictObject({ reason: z.optional(Note), rolloutId: z.optional(MeantRollout) }));

/** Read requests answered with each side. */
export const ServedAnswer = z.strictObject({
  from: described('Read requests answered with `from`', z.int()),
  to: described('Read requests answered with `to`', z.int()),
});

export const RolloutAnswer = named(
  'Rollout',
  z.strictObject({
    rolloutId: z.string(),
    promptId: z.string(),
    label: z.string(),
    from: described('The version the label points at, which the rest of subjects get', z.string()),
    to: described('The version `percent` of subjects get', z.string()),
    percent: Percent,
    startedAt: z.string(),
    startedBy: described("The starter's email, or `cli:<operator>`", z.string()),
    note: z.nullable(z.string()),
    served: described("Read requests answered with each side, summed over the account's keys (frozen when it ended)", ServedAnswer),
    steps: described('Shares scheduled ahead, each `afterMinutes` after the rollout started', RolloutSteps),
    guardAlarm: described('The CloudWatch alarm whose change to ALARM aborts it (deployed)', z.nullable(z.string())),
    state: z.enum(['active', 'completed', 'aborted']),
    endedAt: z.optional(z.string()),
    endedBy: z.optional(z.string()),
  }),
);

const RolloutEnvelope = named('RolloutAnswer', z.strictObject({ rollout: RolloutAnswer }));

const ROLLOUT = '/api/accounts/{accountId}/prompts/{promptId}/labels/{label}/rollout';

export const startRollout = contract({
  method: 'PUT',
  path: ROLLOUT,
  summary: 'Start moving the label to `to` for `percent` of subjects',
  description: 'Whoever may move the label may start its rollout. A label under approval is asked for: 202 with the change request, which carries the rollout.',
  body: RolloutStartBody,
  answers: { 201: RolloutEnvelope, 202: ChangeRequestEnvelope },
  refusals: [409],
});

export const readRollout = contract({
  method: 'GET',
  path: ROLLOUT,
  summary: "The label's active rollout, with what each side has served",
  description: '404 when the label has none: an ended rollout lives on in the label history.',
  answers: { 200: RolloutEnvelope },
});

/** Each change after the start names the rollout it is meant for, or none. */
const MEANT = 'With `rolloutId`, only that rollout (409 naming both when the label has another).';

export const changeRollout = contract({
  method: 'PATCH',
  path: ROLLOUT,
  summary: "Change the rollout's share, and with `steps` its schedule",
  description: `Without \`steps\`, the steps still above the new share stay. ${MEANT}`,
  body: RolloutChangeBody,
  answers: { 200: RolloutEnvelope },
  refusals: [409],
});

export const completeRollout = contract({
  method: 'POST',
  path: `${ROLLOUT}/complete`,
  summary: 'Complete the rollout: the label moves to `to`',
  description: MEANT,
  body: RolloutCompleteBody,
  bodyOptional: true,
  answers: { 200: RolloutEnvelope },
  refusals: [409],
});

export const abortRollout = contract({
  method: 'POST',
  path: `${ROLLOUT}/abort`,
  summary: 'Abort the rollout: the label stays on `from`',
  description: MEANT,
  body: RolloutAbortBody,
  bodyOptional: true,
  answers: { 200: RolloutEnvelope },
  refusals: [409],
});
