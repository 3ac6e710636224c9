import { Annotations, Match } from 'aws-cdk-lib/assertions';
import type { CfnElement } from 'aws-cdk-lib';
import { createTableInput, keys, prefixes } from '../../lambda/data/table-schema';
import { LEADING_KEY_PATTERNS } from '../../lib/prompt-table';
import type { PromptServiceStack } from '../../lib/prompt-service-stack';
import { synthesizeService, TEST_UPGRADE_URL } from './synth';

type Resource = {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  Metadata?: Record<string, unknown>;
};
type Statement = {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
  Condition?: Record<string, Record<string, string[]>>;
  Sid?: string;
};

const { stack, template } = synthesizeService({
  context: { stage: 'test', throttleRateLimit: '7', throttleBurstLimit: '13', logRetentionDays: '14' },
});

const logicalId = (element: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(element.node.defaultChild as CfnElement);
const tableId = logicalId(stack.table.table);
const functionIds = {
  getPrompt: logicalId(stack.functions.getPrompt.function),
  listPrompts: logicalId(stack.functions.listPrompts.function),
  fallback: logicalId(stack.functions.fallback.function),
};

const resources = (type: string): Record<string, Resource> => template.findResources(type) as Record<string, Resource>;
const actionsOf = (statement: Statement): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];

function policyStatementsOfRole(roleId: string): Statement[] {
  return Object.values(resources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

function roleIdOfFunction(functionId: string): string {
  const role = resources('AWS::Lambda::Function')[functionId]?.Properties.Role as { 'Fn::GetAtt': [string, string] };
  return role['Fn::GetAtt'][0];
}

/** `*`-globs as IAM's StringLike evaluates them. */
const likeMatches = (pattern: string, value: string): boolean =>
  new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`).test(value);
function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

describe('the DynamoDB table', () => {
  const [table] = Object.values(resources('AWS::DynamoDB::Table'));
  const local = createTableInput('local');

  it('is the only table, with exactly the keys and admin index lambda/data/table-schema.ts declares', () => {
    expect(Object.keys(resources('AWS::DynamoDB::Table'))).toEqual([tableId]);
    expect(table?.Properties.KeySchema).toEqual(local.KeySchema);
    expect(table?.Properties.AttributeDefinitions).toEqual(local.AttributeDefinitions);
    expect(table?.Properties.GlobalSecondaryIndexes).toEqual(local.GlobalSecondaryIndexes);
  });

  it('bills on demand, keeps point-in-time recovery and is encrypted at rest with a KMS key', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('is retained, and protected from deletion, by default', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
  });

  it('is deleted with the stack when removalPolicy=destroy, for throwaway stages', () => {
    const throwaway = synthesizeService({ context: { removalPolicy: 'destroy' } }).template;
    throwaway.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
    for (const group of Object.values(throwaway.findResources('AWS::Logs::LogGroup'))) {
      expect(group.DeletionPolicy).toBe('Delete');
    }
  });
});

describe('the Lambda functions', () => {
  const functions = resources('AWS::Lambda::Function');

  it('are exactly the three API functions (no log-retention or other helper Lambdas)', () => {
    expect(Object.keys(functions).sort()).toEqual(Object.values(functionIds).sort());
    expect(Object.keys(template.findResources('Custom::LogRetention'))).toEqual([]);
  });

  it.each(Object.entries(functionIds))(
    '%s runs nodejs22.x on arm64 with 512 MB, a 6 s timeout (above the 5 s every answer is due in), an ESM bundle and source maps',
    (_name, id) => {
      expect(functions[id]?.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: 512,
        Timeout: 6,
        Handler: 'index.handler',
      });
    },
  );

  it.each(Object.entries(functionIds))('%s gets the table name, upgrade URL and source-mapped traces', (_name, id) => {
    expect(functions[id]?.Properties.Environment).toEqual({
      Variables: { TABLE_NAME: { Ref: tableId }, UPGRADE_URL: TEST_UPGRADE_URL, NODE_OPTIONS: '--enable-source-maps' },
    });
  });

  it.each(Object.entries(functionIds))('%s logs to its own log group kept for the configured days', (_name, id) => {
    const logGroup = (functions[id]?.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    expect(resources('AWS::Logs::LogGroup')[logGroup]?.Properties.RetentionInDays).toBe(14);
  });

  it('every log group of the stack has the configured retention', () => {
    const groups = Object.values(resources('AWS::Logs::LogGroup'));
    expect(groups).toHaveLength(4);
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(14);
  });
});

describe('least-privilege IAM', () => {
  const allStatements = Object.values(resources('AWS::IAM::Policy')).flatMap(
    (policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
  );

  it('grants no DynamoDB wildcard, Scan, PutItem, DeleteItem, batch or transaction call anywhere in the stack', () => {
    const dynamoActions = allStatements.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'));
    expect(dynamoActions.length).toBeGreaterThan(0);
    for (const action of dynamoActions) {
      expect(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']).toContain(action);
    }
  });

  it('uses no AWS-managed policy on any role', () => {
    for (const role of Object.values(resources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it.each(Object.entries(functionIds))(
    '%s may write its own logs, get items, query account partitions and update usage counters, nothing else',
    (_name, id) => {
      const statements = policyStatementsOfRole(roleIdOfFunction(id));
      const loggingConfig = resources('AWS::Lambda::Function')[id]?.Properties.LoggingConfig;
      const logGroup = (loggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
      expect(statements).toEqual([
        {
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Effect: 'Allow',
          Resource: { 'Fn::GetAtt': [logGroup, 'Arn'] },
        },
        {
          Sid: 'ReadSingleItems',
          Action: 'dynamodb:GetItem',
          Effect: 'Allow',
          Resource: tableArn,
          Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*', 'ACCOUNT#*'] } },
        },
        {
          Sid: 'QueryAccountPartitions',
          Action: 'dynamodb:Query',
          Effect: 'Allow',
          Resource: tableArn,
          Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT#*'] } },
        },
        {
          Sid: 'CountUsage',
          Action: 'dynamodb:UpdateItem',
          Effect: 'Allow',
          Resource: tableArn,
          Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*'] } },
        },
      ]);
    },
  );

  it('lets GetItem reach every item the API reads: keys (with their usage counters), prompt heads and versions', () => {
    const readable = [
      keys.apiKey('0f'.repeat(32)),
      keys.account('acme'),
      keys.promptHead('acme', 'welcome'),
      keys.promptVersion('acme', 'welcome', '1.10.0'),
    ];
    const patterns = [LEADING_KEY_PATTERNS.apiKeyPartitions, LEADING_KEY_PATTERNS.accountPartitions];
    for (const key of readable) expect(patterns.some((pattern) => likeMatches(pattern, key.pk))).toBe(true);
  });

  it('lets Query reach account partitions only, and UpdateItem key items (their usage counters) only', () => {
    expect(likeMatches(LEADING_KEY_PATTERNS.accountPartitions, prefixes.accountPartition('acme'))).toBe(true);
    expect(likeMatches(LEADING_KEY_PATTERNS.accountPartitions, keys.apiKey('ab').pk)).toBe(false);
    expect(likeMatches(LEADING_KEY_PATTERNS.apiKeyPartitions, keys.apiKey('ab').pk)).toBe(true);
    expect(likeMatches(LEADING_KEY_PATTERNS.apiKeyPartitions, keys.promptHead('acme', 'welcome').pk)).toBe(false);
  });
});

describe('the HTTP API', () => {
  const [apiId] = Object.keys(resources('AWS::ApiGatewayV2::Api'));
  const routes = resources('AWS::ApiGatewayV2::Route');
  const integrations = resources('AWS::ApiGatewayV2::Integration');

  function functionBehindRoute(routeKey: string): string | undefined {
    const route = Object.values(routes).find((candidate) => candidate.Properties.RouteKey === routeKey);
    const target = route?.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] } | undefined;
    const integration = integrations[target?.['Fn::Join'][1][1].Ref ?? ''];
    const uri = integration?.Properties.IntegrationUri as { 'Fn::GetAtt': [string, string] } | undefined;
    return uri?.['Fn::GetAtt'][0];
  }

  it('is one HTTP API with no gateway CORS, so preflight reaches the service', () => {
    expect(Object.keys(resources('AWS::ApiGatewayV2::Api'))).toHaveLength(1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: Match.absent(),
      Name: 'prompt-service-test',
    });
  });

  it('routes GET /prompts, GET /prompts/{promptId} and everything else ($default) to their functions', () => {
    expect(Object.values(routes).map((route) => route.Properties.RouteKey).sort()).toEqual([
      '$default',
      'GET /prompts',
      'GET /prompts/{promptId}',
    ]);
    expect(functionBehindRoute('GET /prompts')).toBe(functionIds.listPrompts);
    expect(functionBehindRoute('GET /prompts/{promptId}')).toBe(functionIds.getPrompt);
    expect(functionBehindRoute('$default')).toBe(functionIds.fallback);
  });

  it('leaves every route open at the gateway: the functions check the key, and OPTIONS must pass without one', () => {
    for (const route of Object.values(routes)) expect(route.Properties.AuthorizationType).toBe('NONE');
  });

  it('proxies every route with payload format 2.0', () => {
    expect(Object.values(integrations)).toHaveLength(3);
    for (const integration of Object.values(integrations)) {
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    }
  });

  it.each(Object.entries(functionIds))('lets API Gateway invoke %s from this API only', (_name, id) => {
    const permissions = Object.values(resources('AWS::Lambda::Permission')).filter(
      (permission) =>
        JSON.stringify(permission.Properties.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }),
    );
    expect(permissions.length).toBeGreaterThan(0);
    for (const permission of permissions) {
      expect(permission.Properties.Principal).toBe('apigateway.amazonaws.com');
      expect(JSON.stringify(permission.Properties.SourceArn)).toContain(JSON.stringify({ Ref: apiId }));
    }
  });

  it('serves at the root through the auto-deployed $default stage, throttled as configured', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      ApiId: { Ref: apiId },
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 7, ThrottlingBurstLimit: 13 },
    });
  });

  it('throttles at 50 requests/s with a burst of 100 unless told otherwise', () => {
    synthesizeService().template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
  });

  it('writes JSON access logs that carry neither headers nor the query string', () => {
    const [stage] = Object.values(resources('AWS::ApiGatewayV2::Stage'));
    const settings = stage?.Properties.AccessLogSettings as { DestinationArn: unknown; Format: string };
    const format = JSON.parse(settings.Format) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      routeKey: '$context.routeKey',
    });
    expect(settings.Format).not.toMatch(/header|querystring|authorization/i);
    const group = (settings.DestinationArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(resources('AWS::Logs::LogGroup')[group]).toBeDefined();
  });
});

describe('alarms', () => {
  const alarms = Object.values(resources('AWS::CloudWatch::Alarm'));
  const [topicId] = Object.keys(resources('AWS::SNS::Topic'));
  type Dimension = { Name: string; Value: unknown };
  type MetricQuery = {
    Id: string;
    Expression?: string;
    MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: Dimension[] } };
  };
  const queriesOf = (alarm: Resource) => alarm.Properties.Metrics as MetricQuery[];
  const metricNamesOf = (alarm: Resource) =>
    queriesOf(alarm).flatMap((query) => (query.MetricStat ? [query.MetricStat.Metric.MetricName] : []));

  it('alarm on the share of 5xx responses of this API', () => {
    const alarm = alarms.find((candidate) => metricNamesOf(candidate).includes('5xx'));
    expect(alarm).toBeDefined();
    expect(queriesOf(alarm as Resource).find((query) => query.Expression)?.Expression).toBe(
      'IF(requests > 0, 100 * errors / requests, 0)',
    );
    expect(metricNamesOf(alarm as Resource).sort()).toEqual(['5xx', 'Count']);
    expect(alarm?.Properties).toMatchObject({ Threshold: 5, ComparisonOperator: 'GreaterThanThreshold' });
  });

  it('alarm on any throttled GetItem, Query or UpdateItem of the table', () => {
    const alarm = alarms.find((candidate) => metricNamesOf(candidate).includes('ThrottledRequests'));
    const operations = queriesOf(alarm as Resource).flatMap((query) =>
      (query.MetricStat?.Metric.Dimensions ?? []).filter((d) => d.Name === 'Operation').map((d) => d.Value),
    );
    expect(operations.sort()).toEqual(['GetItem', 'Query', 'UpdateItem']);
    for (const query of queriesOf(alarm as Resource).filter((q) => q.MetricStat)) {
      expect(query.MetricStat?.Metric.Dimensions).toContainEqual({ Name: 'TableName', Value: { Ref: tableId } });
    }
    expect(alarm?.Properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('alarm on errors (crash, init failure, timeout) of each function', () => {
    const errorAlarms = alarms.filter((alarm) => alarm.Properties.MetricName === 'Errors');
    const watched = errorAlarms.map((alarm) => alarm.Properties.Dimensions as { Name: string; Value: { Ref: string } }[]);
    expect(watched.map((dimensions) => dimensions[0]?.Name)).toEqual(['FunctionName', 'FunctionName', 'FunctionName']);
    expect(watched.map((dimensions) => dimensions[0]?.Value.Ref).sort()).toEqual(Object.values(functionIds).sort());
    for (const alarm of errorAlarms) {
      expect(alarm.Properties).toMatchObject({ Namespace: 'AWS/Lambda', Statistic: 'Sum', Threshold: 1 });
    }
  });

  it('all notify the alarm topic, which refuses plain-HTTP publishing', () => {
    expect(alarms).toHaveLength(5);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
    }
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('subscribe alarmEmail to the topic when it is given, and nobody otherwise', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    synthesizeService({ context: { alarmEmail: 'ops@prompts.test' } }).template.hasResourceProperties(
      'AWS::SNS::Subscription',
      { Protocol: 'email', Endpoint: 'ops@prompts.test' },
    );
  });
});

describe('outputs', () => {
  it('give the API URL of the $default stage and the table name', () => {
    const [apiId] = Object.keys(resources('AWS::ApiGatewayV2::Api'));
    const outputs = template.findOutputs('*');
    expect(JSON.stringify(outputs.ApiUrl?.Value)).toContain(JSON.stringify({ Ref: apiId }));
    expect(JSON.stringify(outputs.ApiUrl?.Value)).toMatch(/"https:\/\/".*\.execute-api\..*"\/"/);
    expect(outputs.TableName?.Value).toEqual({ Ref: tableId });
  });

  it('give the region, the alarm topic and each function name (for logs and sam local)', () => {
    const outputs = template.findOutputs('*');
    expect(outputs.Region?.Value).toEqual({ Ref: 'AWS::Region' });
    expect(outputs.AlarmTopicArn?.Value).toEqual({ Ref: Object.keys(resources('AWS::SNS::Topic'))[0] });
    expect(outputs.GetPromptFunctionName?.Value).toEqual({ Ref: functionIds.getPrompt });
    expect(outputs.ListPromptsFunctionName?.Value).toEqual({ Ref: functionIds.listPrompts });
    expect(outputs.FallbackFunctionName?.Value).toEqual({ Ref: functionIds.fallback });
  });
});

describe('the upgrade URL', () => {
  it("warns at synth when it is still cdk.json's example.com placeholder", () => {
    const placeholder = synthesizeService({ context: { upgradeUrl: 'https://example.com/upgrade' } }).stack;
    Annotations.fromStack(placeholder).hasWarning('*', Match.stringLikeRegexp('upgradeUrl is the placeholder'));
  });

  it('is not warned about when it is a real one', () => {
    Annotations.fromStack(stack as PromptServiceStack).hasNoWarning('*', Match.stringLikeRegexp('placeholder'));
  });
});

