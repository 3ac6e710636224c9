import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ApiFunction, type ApiFunctionProps } from './api-function';
import { accessOf } from './function-access';
import { acknowledgeGuardRule } from './policy-checks';
import type { PromptTable } from './prompt-table';

/**
 * The deployed automation of rollouts (docs/rollouts.md "Steps and a guard alarm (deployed)"): its two functions, by construct id
 * (`sam local invoke <id>Function`), with their entry files under lambda/rollout-automation/.
 */
export const ROLLOUT_AUTOMATION_FUNCTIONS = [
  {
    id: 'RolloutSteps',
    entry: 'lambda/rollout-automation/rollout-steps-function.ts',
    description: 'Rollouts: applies the due steps of every account, every minute',
  },
  {
    id: 'GuardAlarm',
    entry: 'lambda/rollout-automation/guard-alarm-function.ts',
    description: 'Rollouts: aborts those a CloudWatch alarm guards when it goes to ALARM',
  },
] as const;

/** What the guard rule matches: any alarm of the stack's account and region going to ALARM (the function picks the rollouts). */
export const GUARD_ALARM_EVENT_PATTERN = {
  source: ['aws.cloudwatch'],
  detailType: ['CloudWatch Alarm State Change'],
  detail: { state: { value: ['ALARM'] } },
} as const;

/**
 * 50 s: a run ends before the next minute's starts, so two runs rarely overlap (and when they do, each change is
 * conditional on the rollout it read: the second finds the step applied).
 */
export const STEPS_TIMEOUT = Duration.seconds(50);
/** Every guarded rollout of one alarm, one transaction each, with the store's own retries: seconds, not minutes. */
export const GUARD_TIMEOUT = Duration.seconds(30);
/**
 * With the `reservedConcurrency` setting, each function runs one invocation at a time (the steps never two runs at
 * once; alarms one after another, Lambda retrying the next): however many rollouts an account starts, they hold one.
 */
export const AUTOMATION_RESERVED_CONCURRENCY = 1;

export interface RolloutAutomationProps {
  readonly table: PromptTable;
  readonly serviceName: string;
  readonly logLevel: string;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** Reserve AUTOMATION_RESERVED_CONCURRENCY for each function (docs/deploy.md "Concurrency"). */
  readonly reservedConcurrency?: boolean;
}

/**
 * A scheduled function that applies due steps (an EventBridge rule, `rate(1 minute)`) and a function that aborts
 * guarded rollouts (an EventBridge rule on CloudWatch alarms going to ALARM). Each holds only the table rights its code
 * uses (lib/function-access.ts).
 *
 * A tick of the steps rule that fails is not retried (Lambda's async retries off, EventBridge's too): the next minute's
 * run is the retry, and finds the same steps due. An alarm's event is retried (Lambda twice, EventBridge while it cannot
 * deliver), and one that still fails goes to the dead-letter queue, whose alarm (lib/service-alarms.ts) tells the
 * operator to abort by hand: a guard that silently did nothing is the one failure that must not pass unseen.
 */
export class RolloutAutomation extends Construct {
  readonly steps: ApiFunction;
  readonly guard: ApiFunction;
  readonly stepsRule: Rule;
  readonly guardRule: Rule;
  /** Alarm events the guard function could not act on, after every retry. */
  readonly guardDeadLetters: Queue;

  constructor(scope: Construct, id: string, props: RolloutAutomationProps) {
    super(scope, id);
    const [stepsSpec, guardSpec] = ROLLOUT_AUTOMATION_FUNCTIONS;
    this.guardDeadLetters = new Queue(this, 'GuardDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledgeGuardRule(
      this.guardDeadLetters,
      'sqs_dlq_check',
      'It is the dead-letter queue of the guard alarm function and of its EventBridge target (no queue redrives to it, so the ' +
        'check cannot tell): a queue of what failed after every retry needs no dead-letter queue of its own.',
    );

    const automationFunction = (spec: (typeof ROLLOUT_AUTOMATION_FUNCTIONS)[number], extra: Pick<ApiFunctionProps, 'timeout' | 'asyncInvocation'>) => {
      const fn = new ApiFunction(this, spec.id, {
        entry: spec.entry,
        description: spec.description,
        environment: {
          TABLE_NAME: props.table.table.tableName,
          POWERTOOLS_SERVICE_NAME: props.serviceName,
          POWERTOOLS_LOG_LEVEL: props.logLevel,
        },
        logRetention: props.logRetention,
        logRemovalPolicy: props.logRemovalPolicy,
        ...(props.reservedConcurrency ? { reservedConcurrency: AUTOMATION_RESERVED_CONCURRENCY } : {}),
        ...extra,
      });
      props.table.grant(fn.role, accessOf(spec.id).table);
      Validations.of(fn.function).acknowledge({
        id: 'AwsSolutions-L1',
        reason: 'Built and tested for nodejs22.x like the APIs; a newer runtime is a deliberate upgrade with its own test run.',
      });
      return fn;
    };

    this.steps = automationFunction(stepsSpec, {
      timeout: STEPS_TIMEOUT,
      asyncInvocation: { retryAttempts: 0, maxEventAge: Duration.minutes(1) },
    });
    this.guard = automationFunction(guardSpec, {
      timeout: GUARD_TIMEOUT,
      asyncInvocation: { retryAttempts: 2, maxEventAge: Duration.hours(6), deadLetterQueue: this.guardDeadLetters },
    });

    // A rule, not EventBridge Scheduler: one fixed schedule for every rollout needs no schedule per rollout (nor the
    // rights to create and delete them from the management functions), no role for Scheduler to invoke with, and it is
    // the code `npm start` runs on its own timer.
    this.stepsRule = new Rule(this, 'StepsSchedule', {
      description: 'Every minute: apply the due steps of rollouts',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(this.steps.function, { retryAttempts: 0, maxEventAge: Duration.minutes(1) })],
    });
    this.guardRule = new Rule(this, 'GuardAlarmChanges', {
      description: 'A CloudWatch alarm of this account and region went to ALARM: abort the rollouts it guards',
      eventPattern: {
        source: [...GUARD_ALARM_EVENT_PATTERN.source],
        detailType: [...GUARD_ALARM_EVENT_PATTERN.detailType],
        detail: { state: { value: [...GUARD_ALARM_EVENT_PATTERN.detail.state.value] } },
      },
      targets: [new LambdaFunction(this.guard.function, { retryAttempts: 20, maxEventAge: Duration.hours(6), deadLetterQueue: this.guardDeadLetters })],
    });
  }
}
