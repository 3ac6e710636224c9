import type { CfnElement } from 'aws-cdk-lib';
import { AUTOMATION_RESERVED_CONCURRENCY } from '../../lib/rollout-automation';
import { synthesizeService } from './synth';

/**
 * The deployed automation of rollouts (docs/rollouts.md "Steps and a guard alarm (deployed)"), read from the template: a rule
 * every minute for due steps, a rule on CloudWatch alarms going to ALARM for guards, and what each does with an
 * invocation that fails. Their rights are held to their code in function-access.test.ts, their alarms in monitoring.test.ts.
 */

type Resource = { Type: string; Properties: Record<string, unknown> };
// The default stage, prod.
const { stack, template } = synthesizeService();
const resources = template.toJSON().Resources as Record<string, Resource>;
const logicalId = (construct: { node: { defaultChild?: unknown } }): string => stack.getLogicalId(construct.node.defaultChild as CfnElement);
const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);

const stepsId = logicalId(stack.rollouts.steps.function);
const guardId = logicalId(stack.rollouts.guard.function);
const queueArn = { 'Fn::GetAtt': [logicalId(stack.rollouts.guardDeadLetters), 'Arn'] };

/** The rules that invoke a function, with their one target. */
function rulesOf(functionId: string): { rule: Record<string, unknown>; target: Record<string, unknown> }[] {
  return ofType('AWS::Events::Rule').flatMap(([, rule]) =>
    ((rule.Properties.Targets ?? []) as Record<string, unknown>[])
      .filter((target) => JSON.stringify(target.Arn) === JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] }))
      .map((target) => ({ rule: rule.Properties, target })),
  );
}

function asyncConfigOf(functionId: string): Record<string, unknown> | undefined {
  return ofType('AWS::Lambda::EventInvokeConfig').find(([, config]) => (config.Properties.FunctionName as { Ref?: string }).Ref === functionId)?.[1].Properties;
}

describe('the steps function', () => {
  it('is invoked by one rule, every minute, on the default bus', () => {
    const rules = rulesOf(stepsId);
    expect(rules).toHaveLength(1);
    expect(rules[0]?.rule).toMatchObject({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' });
    expect(rules[0]?.rule.EventBusName).toBeUndefined();
  });

  it('is not retried by EventBridge or Lambda: the next minute is the retry, and finds the same steps due', () => {
    expect(rulesOf(stepsId)[0]?.target.RetryPolicy).toEqual({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 });
    expect(asyncConfigOf(stepsId)).toMatchObject({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 });
    expect(resources[stepsId]?.Properties.DeadLetterConfig).toBeUndefined();
  });

  it('ends a run within the minute, before the next one starts', () => {
    expect(resources[stepsId]?.Properties.Timeout).toBeLessThan(60);
  });
});

describe('the guard alarm function', () => {
  it("is invoked by one rule, on every CloudWatch alarm of the stack's account and region that goes to ALARM", () => {
    const rules = rulesOf(guardId);
    expect(rules).toHaveLength(1);
    expect(rules[0]?.rule.EventPattern).toEqual({
      source: ['aws.cloudwatch'],
      'detail-type': ['CloudWatch Alarm State Change'],
      detail: { state: { value: ['ALARM'] } },
    });
    expect(rules[0]?.rule.ScheduleExpression).toBeUndefined();
  });

  it('is retried by Lambda and EventBridge, and an event it still cannot act on goes to its dead-letter queue', () => {
    expect(asyncConfigOf(guardId)).toMatchObject({ MaximumRetryAttempts: 2 });
    expect(resources[guardId]?.Properties.DeadLetterConfig).toEqual({ TargetArn: queueArn });
    const [rule] = rulesOf(guardId);
    if (!rule) throw new Error('no rule invokes the guard function');
    const { target } = rule;
    expect(target.DeadLetterConfig).toEqual({ Arn: queueArn });
    expect((target.RetryPolicy as { MaximumRetryAttempts: number }).MaximumRetryAttempts).toBeGreaterThan(0);
  });

  it('has a dead-letter queue encrypted at rest, reachable over TLS only, that EventBridge may send to from its rule alone', () => {
    const queueId = queueArn['Fn::GetAtt'][0] as string;
    expect(resources[queueId]?.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    const [[, policy] = []] = ofType('AWS::SQS::QueuePolicy');
    if (!policy) throw new Error('the dead-letter queue has no policy');
    const statements = (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement;
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({
          Effect: 'Allow',
          Principal: { Service: 'events.amazonaws.com' },
          Action: 'sqs:SendMessage',
          Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [expect.stringContaining('GuardAlarmChanges'), 'Arn'] } } },
        }),
      ]),
    );
  });
});

describe('both functions', () => {
  it.each([
    ['steps', stepsId],
    ['guard', guardId],
  ])('the %s function runs nodejs22.x on arm64, with the table, its service name and log level, and no user pool or upgrade URL', (_name, id) => {
    expect(resources[id]?.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Handler: 'index.handler' });
    expect(resources[id]?.Properties.Environment).toEqual({
      Variables: {
        TABLE_NAME: { Ref: logicalId(stack.table.table) },
        POWERTOOLS_SERVICE_NAME: 'prompt-service-prod',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        NODE_OPTIONS: '--enable-source-maps',
      },
    });
  });

  it.each([
    ['steps', stepsId],
    ['guard', guardId],
  ])('the %s function may be invoked by EventBridge from its own rule only', (_name, id) => {
    const permissions = ofType('AWS::Lambda::Permission').filter(([, permission]) => JSON.stringify(permission.Properties.FunctionName).includes(id));
    expect(permissions).toHaveLength(1);
    expect(permissions[0]?.[1].Properties).toMatchObject({
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [expect.stringMatching(/^Rollouts(StepsSchedule|GuardAlarmChanges)/), 'Arn'] },
    });
  });
});

describe('how many of them run at once', () => {
  it('by default reserve nothing: one steps run a minute, ended within it, and one guard run an alarm bound them', () => {
    for (const id of [stepsId, guardId]) expect(resources[id]?.Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(rulesOf(stepsId)[0]?.rule).toMatchObject({ ScheduleExpression: 'rate(1 minute)' });
    expect(resources[stepsId]?.Properties.Timeout).toBeLessThan(60);
  });

  it('with -c reservedConcurrency=true each reserves one: however many rollouts an account starts, they hold one run each', () => {
    const reserved = synthesizeService({ context: { reservedConcurrency: 'true' } });
    const reservedResources = reserved.template.toJSON().Resources as Record<string, Resource>;
    for (const fn of [reserved.stack.rollouts.steps, reserved.stack.rollouts.guard]) {
      const id = reserved.stack.getLogicalId(fn.function.node.defaultChild as CfnElement);
      expect(reservedResources[id]?.Properties.ReservedConcurrentExecutions).toBe(AUTOMATION_RESERVED_CONCURRENCY);
    }
    expect(AUTOMATION_RESERVED_CONCURRENCY).toBe(1);
  });
});
