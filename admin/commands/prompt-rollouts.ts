import { isValidPercent, PERCENT_RULE, ROLLOUT_ID_PATTERN, type RolloutStep } from '../../lambda/domain/rollout';
import { ALARM_NAME_RULE, isAlarmName, STEPS_RULE } from '../../lambda/domain/rollout-rules';
import type { Rollout } from '../../lambda/features/rollouts/rollouts';
import { type Command, type CommandArgs, operationsOn, requiredOption, stringOption, UsageError } from '../command';
import { accountOption, labelOption, promptIdOption, versionOption } from '../option-values';

/**
 * A label's rollout from the command line (docs/rollouts.md, docs/cli.md "Rollouts"): the same operations as the
 * management API's rollout routes, audited as the operator's (`rollout.start`, `rollout.change`,
 * `rollout.complete`, `rollout.abort`). One command, its action the first argument: the CLI's commands are two
 * words.
 */

const ACTIONS = ['start', 'show', 'set', 'complete', 'abort'] as const;
type Action = (typeof ACTIONS)[number];

/** The options each action takes beyond --account, --prompt and --label. */
const ACTION_OPTIONS: Readonly<Record<Action, readonly string[]>> = {
  start: ['to', 'percent', 'note', 'steps', 'guard-alarm'],
  show: [],
  set: ['percent', 'steps', 'rollout'],
  complete: ['rollout'],
  abort: ['reason', 'rollout'],
};

const isAction = (value: string | undefined): value is Action => ACTIONS.some((action) => action === value);

function percentOption(args: CommandArgs): number {
  const text = requiredOption(args, 'percent');
  const percent = Number(text.endsWith('%') ? text.slice(0, -1) : text);
  if (text.trim() === '' || !isValidPercent(percent)) throw new UsageError(`--percent must be ${PERCENT_RULE}`);
  return percent;
}

/** `25@60,50@120`: 25% an hour after the start, 50% two hours after. Their order and rise are the operations' to check. */
function stepsOption(args: CommandArgs): RolloutStep[] | undefined {
  const text = stringOption(args, 'steps');
  if (text === undefined) return undefined;
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const match = /^\s*(\d+(?:\.\d{1,2})?)%?@(\d+)\s*$/.exec(part);
    if (!match) throw new UsageError(`--steps must be <percent>@<minutes>, comma-separated (e.g. 25@60,50@120): ${STEPS_RULE}`);
    return { percent: Number(match[1]), afterMinutes: Number(match[2]) };
  });
}

function textOption(args: CommandArgs, name: string): string | undefined {
  const value = stringOption(args, name);
  if (value === undefined) return undefined;
  if (value.trim() === '' || value.trim().length > 500) throw new UsageError(`--${name} must be 1 to 500 characters`);
  return value.trim();
}

/** The rollout a change is meant for (`show` prints its id): another one on the label since is refused (exit 1). */
function rolloutOption(args: CommandArgs): { rolloutId?: string } {
  const value = stringOption(args, 'rollout');
  if (value === undefined) return {};
  if (!ROLLOUT_ID_PATTERN.test(value))
    throw new UsageError('--rollout must be a rollout id: ro_, 17 digits, _ and 8 hex digits (prompts rollout show prints it)');
  return { rolloutId: value };
}

function guardAlarmOption(args: CommandArgs): string | undefined {
  const value = stringOption(args, 'guard-alarm');
  if (value !== undefined && !isAlarmName(value)) throw new UsageError(`--guard-alarm must be ${ALARM_NAME_RULE}`);
  return value;
}

const describeSteps = (steps: readonly RolloutStep[]): string =>
  steps.length === 0 ? 'none' : steps.map((step) => `${step.percent}% after ${step.afterMinutes} min`).join(', ');

/** The rollout for people: which, where it moves the label, the share, what each side served, and what is ahead. */
function describe(rollout: Rollout): string {
  const state = rollout.state === 'active' ? '' : ` (${rollout.state} by ${rollout.endedBy} at ${rollout.endedAt})`;
  return [
    `Rollout ${rollout.rolloutId} of label ${rollout.label} of prompt ${rollout.promptId}${state}:`,
    `  ${rollout.percent}% of subjects get ${rollout.to}, the rest ${rollout.from}`,
    `  served: ${rollout.served.from} from ${rollout.from}, ${rollout.served.to} to ${rollout.to}`,
    `  started by ${rollout.startedBy} at ${rollout.startedAt}${rollout.note === null ? '' : `: ${rollout.note}`}`,
    `  steps ahead: ${describeSteps(rollout.steps)}`,
    ...(rollout.guardAlarm === null ? [] : [`  guard alarm: ${rollout.guardAlarm}`]),
  ].join('\n');
}

const rollout: Command = {
  words: ['prompts', 'rollout'],
  summary: 'Roll a label out to a new version for a share of subjects: start, show, set the share, complete or abort',
  synopsis:
    'start|show|set|complete|abort --account <accountId> --prompt <promptId> --label <name> ' +
    '[--to <x.y.z> --percent <0-100> [--note <text>] [--steps <percent@minutes,...>] [--guard-alarm <name>]] [--reason <text>] [--rollout <rolloutId>]',
  help: [
    'start     --to <x.y.z> --percent <0-100>: the label keeps pointing where it does (from), and reads at it answer',
    '          --to for that share of subjects (X-Prompt-Subject), sticky per subject; optional --note <text>,',
    '          --steps 25@60,50@120 (the share becomes 25% an hour after the start, 50% after two hours) and',
    '          --guard-alarm <CloudWatch alarm name> (deployed: its change to ALARM aborts the rollout).',
    '          A label the account puts under approval opens a change request that carries the rollout.',
    'show      the active rollout, with what each side served so far',
    'set       --percent <0-100> [--steps ...]: a new share (without --steps, the steps above it stay)',
    'complete  the label moves to --to of the rollout; the rollout ends',
    'abort     [--reason <text>]: the label stays on from; the rollout ends',
    'set, complete and abort take --rollout <rolloutId> (show prints it): only that rollout is changed, and if it',
    '          has ended and the label rolls out another, nothing changes (exit 1, naming both).',
    'While a label rolls out, `prompts label`, `prompts unlabel` and `prompts push` refuse to move it.',
    "Each change is audited as the operator's and kept in the label's history (prompts label-history).",
  ],
  examples: [
    'prompts rollout start --account acme --prompt welcome-email --label production --to 1.3.0 --percent 10 --steps 25@60,50@180',
    'prompts rollout show --account acme --prompt welcome-email --label production',
    'prompts rollout set --account acme --prompt welcome-email --label production --percent 50 --rollout ro_20261201093000000_1a2b3c4d',
    'prompts rollout complete --account acme --prompt welcome-email --label production',
    'prompts rollout abort --account acme --prompt welcome-email --label production --reason "error rate up"',
  ],
  options: {
    account: { type: 'string' },
    prompt: { type: 'string' },
    label: { type: 'string' },
    to: { type: 'string' },
    percent: { type: 'string' },
    note: { type: 'string' },
    steps: { type: 'string' },
    'guard-alarm': { type: 'string' },
    reason: { type: 'string' },
    rollout: { type: 'string' },
  },
  positionals: { min: 1, max: 1 },
  async run(context, args) {
    const action = args.positionals[0];
    if (!isAction(action)) throw new UsageError(`prompts rollout: the action must be one of ${ACTIONS.join(', ')}`);
    const foreign = Object.keys(ACTION_OPTIONS)
      .flatMap((other) => ACTION_OPTIONS[other as Action])
      .filter((option) => !ACTION_OPTIONS[action].includes(option) && args.values[option] !== undefined);
    if (foreign.length > 0) throw new UsageError(`prompts rollout ${action} takes no --${foreign[0]} (see --help)`);
    const accountId = accountOption(args);
    const promptId = promptIdOption(args);
    const label = labelOption(args);
    const where = `label ${label} of prompt ${promptId} (account ${accountId})`;

    if (action === 'start') {
      const to = versionOption(args, 'to');
      const percent = percentOption(args);
      const note = textOption(args, 'note');
      const steps = stepsOption(args);
      const guardAlarm = guardAlarmOption(args);
      const input = {
        to,
        percent,
        ...(note === undefined ? {} : { note }),
        ...(steps === undefined ? {} : { steps }),
        ...(guardAlarm === undefined ? {} : { guardAlarm }),
      };
      const started = await (await operationsOn(context, accountId)).rollouts.start(accountId, promptId, label, input);
      if ('changeRequest' in started) {
        const { changeRequest } = started;
        return {
          json: { accountId, request: changeRequest },
          text: `The account puts ${where} under approval: asked for the rollout in change request ${changeRequest.requestId}, which starts it once approved`,
        };
      }
      return { json: { accountId, rollout: started.rollout }, text: `Started ${describe(started.rollout).replace(/^Rollout/, 'rollout')}` };
    }
    const ops = await operationsOn(context, accountId);
    if (action === 'show') {
      const shown = await ops.rollouts.read(accountId, promptId, label);
      return { json: { accountId, rollout: shown }, text: describe(shown) };
    }
    if (action === 'set') {
      const percent = percentOption(args);
      const steps = stepsOption(args);
      const changed = await ops.rollouts.change(accountId, promptId, label, { percent, ...(steps === undefined ? {} : { steps }), ...rolloutOption(args) });
      return { json: { accountId, rollout: changed }, text: `Changed ${describe(changed).replace(/^Rollout/, 'rollout')}` };
    }
    if (action === 'complete') {
      const completed = await ops.rollouts.complete(accountId, promptId, label, rolloutOption(args));
      return { json: { accountId, rollout: completed }, text: `${describe(completed)}\nLabel ${label} now points at ${completed.to}` };
    }
    const reason = textOption(args, 'reason');
    const aborted = await ops.rollouts.abort(accountId, promptId, label, { ...(reason === undefined ? {} : { reason }), ...rolloutOption(args) });
    return { json: { accountId, rollout: aborted }, text: `${describe(aborted)}\nLabel ${label} stays on ${aborted.from}` };
  },
};

export const promptRolloutCommands: readonly Command[] = [rollout];
