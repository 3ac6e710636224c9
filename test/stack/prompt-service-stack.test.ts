import { Annotations, Match } from 'aws-cdk-lib/assertions';
import type { CfnElement } from 'aws-cdk-lib';
import { createTableInput, keys, prefixes } from '../../lambda/table/schema';
import { METRIC, METRICS_NAMESPACE } from '../../lambda/metric-names';
import { FUNCTION_ACCESS, LEADING_KEY_PATTERNS } from '../../lib/function-access';
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

const logicalId = (element: { node: { defaultChild?: unknown } }): string => stack.getLogicalId(element.node.defaultChild as CfnElement);
const tableId = logicalId(stack.table.table);
const functionIds = {
  getPrompt: logicalId(stack.functions.getPrompt.function),
  listPrompts: logicalId(stack.functions.listPrompts.function),
  fallback: logicalId(stack.functions.fallback.function),
  mcp: logicalId(stack.functions.mcp.function),
};

const resources = (type: string): Record<string, Resource> => template.findResources(type) as Record<string, Resource>;
const actionsOf = (statement: Statement): string[] => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);

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
const likeMatches = (pattern: string, value: string): boolean => new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`).test(value);
function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

describe('the DynamoDB table', () => {
  const [table] = Object.values(resources('AWS::DynamoDB::Table'));
  const local = createTableInput('local');

  it('is the only table, with exactly the keys and admin index lambda/table/schema.ts declares', () => {
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

/** The read API's own resources: the management API (lib/management-api.ts) has its tests in management-api.test.ts. */
const readApiId = logicalId(stack.api.restApi);
const ofReadApi = (resource: Resource): boolean => (resource.Properties.RestApiId as { Ref?: string } | undefined)?.Ref === readApiId;
const readOnly = (all: Record<string, Resource>): Record<string, Resource> =>
  Object.fromEntries(Object.entries(all).filter(([id, resource]) => id === readApiId || ofReadApi(resource)));

describe('the Lambda functions', () => {
  // The management API's functions are tested in management-api.test.ts, the rollout automation's in rollout-automation.test.ts,
  // the events' in event-delivery.test.ts; CDK's upload function runs at deploy only.
  const isReadFunction = (id: string): boolean =>
    !id.startsWith('Management') && !id.startsWith('Rollouts') && !id.startsWith('Events') && !id.startsWith('CustomCDKBucketDeployment');
  const functions = Object.fromEntries(Object.entries(resources('AWS::Lambda::Function')).filter(([id]) => isReadFunction(id)));

  it("are exactly the four read API functions (GET twice, the fallback, MCP) beside the management API's (no log-retention or other helper Lambdas)", () => {
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

  it.each(Object.entries(functionIds))('%s gets the table name, upgrade URL, its service name and log level, and source-mapped traces', (_name, id) => {
    expect(functions[id]?.Properties.Environment).toEqual({
      Variables: {
        TABLE_NAME: { Ref: tableId },
        UPGRADE_URL: TEST_UPGRADE_URL,
        POWERTOOLS_SERVICE_NAME: 'prompt-service-test',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        NODE_OPTIONS: '--enable-source-maps',
      },
    });
  });

  it('reserve no concurrency by default, so the stack deploys in an account whose limit is 10 (Lambda keeps 10 unreserved)', () => {
    const reserving = Object.values(template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>).filter(
      (resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.ReservedConcurrentExecutions !== undefined,
    );
    expect(reserving).toEqual([]);
  });

  it('with -c reservedConcurrency=true reserve deliveryConcurrency + 2 in all: the delivery function, the steps and the guard functions', () => {
    const reserved = synthesizeService({ context: { reservedConcurrency: 'true' } }).template.toJSON().Resources as Record<
      string,
      { Type: string; Properties: Record<string, unknown>; Metadata?: Record<string, unknown> }
    >;
    const byFunction = Object.values(reserved)
      .filter((resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.ReservedConcurrentExecutions !== undefined)
      .map((resource) => [resource.Metadata?.SamResourceId, resource.Properties.ReservedConcurrentExecutions]);
    expect(Object.fromEntries(byFunction)).toEqual({ WebhookDeliveryFunction: 10, RolloutStepsFunction: 1, GuardAlarmFunction: 1 });
  });

  it('log at the level -c logLevel gives them', () => {
    const debug = synthesizeService({ context: { logLevel: 'debug' } }).template;
    for (const [id, fn] of Object.entries(debug.findResources('AWS::Lambda::Function'))) {
      if (id.startsWith('CustomCDKBucketDeployment')) continue;
      expect(fn.Properties.Environment.Variables.POWERTOOLS_LOG_LEVEL).toBe('DEBUG');
    }
  });

  it.each(Object.entries(functionIds))('%s logs to its own log group kept for the configured days', (_name, id) => {
    const logGroup = (functions[id]?.Properties.LoggingConfig as { LogGroup: { Ref: string } } | undefined)?.LogGroup.Ref;
    expect(resources('AWS::Logs::LogGroup')[logGroup ?? '']?.Properties.RetentionInDays).toBe(14);
  });

  it("every log group of the stack has the configured retention: each function's, CDK's upload function's too, and each REST API's access log", () => {
    const groups = resources('AWS::Logs::LogGroup');
    for (const group of Object.values(groups)) expect(group.Properties.RetentionInDays).toBe(14);
    const allFunctions = Object.values(resources('AWS::Lambda::Function'));
    const logGroupOf = (fn: Resource) => (fn.Properties.LoggingConfig as { LogGroup?: { Ref: string } } | undefined)?.LogGroup?.Ref;
    for (const fn of allFunctions) expect(Object.keys(groups)).toContain(logGroupOf(fn));
    expect(Object.keys(groups)).toHaveLength(allFunctions.length + Object.keys(resources('AWS::ApiGateway::RestApi')).length);
  });
});

describe('least-privilege IAM', () => {
  it('grants the read API no DynamoDB wildcard, Scan, PutItem, DeleteItem, batch write or transaction call', () => {
    const readRoles = new Set(Object.values(functionIds).map(roleIdOfFunction));
    const readStatements = Object.values(resources('AWS::IAM::Policy'))
      .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => readRoles.has(role.Ref)))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
    const dynamoActions = readStatements.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'));
    expect(dynamoActions.length).toBeGreaterThan(0);
    for (const action of dynamoActions) {
      expect(['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']).toContain(action);
    }
  });

  it("uses no AWS-managed policy on any role but CDK's own upload function's, which runs at deploy only", () => {
    const roles = Object.entries(resources('AWS::IAM::Role')).filter(([id]) => !id.startsWith('CustomCDKBucketDeployment'));
    for (const [, role] of roles) {
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
          Action: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
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
    const readable = [keys.apiKey('0f'.repeat(32)), keys.account('acme'), keys.promptHead('acme', 'welcome'), keys.promptVersion('acme', 'welcome', '1.10.0')];
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

describe('the REST API', () => {
  const apiId = readApiId;
  const apiResources = readOnly(resources('AWS::ApiGateway::Resource'));
  const methods = readOnly(resources('AWS::ApiGateway::Method'));

  /** A resource's path, from its PathPart up through ParentId to the root. */
  function pathOf(resourceId: unknown): string {
    const ref = (resourceId as { Ref?: string }).Ref;
    const resource = ref === undefined ? undefined : apiResources[ref];
    if (!resource) return '/';
    const parent = pathOf(resource.Properties.ParentId);
    return `${parent === '/' ? '' : parent}/${String(resource.Properties.PathPart)}`;
  }

  /** `GET /prompts` -> the function behind it, as the integration URI names it. */
  function methodTable(): Record<string, string | undefined> {
    return Object.fromEntries(
      Object.values(methods).map((method) => {
        const uri = JSON.stringify((method.Properties.Integration as { Uri: unknown }).Uri);
        const fn = Object.entries(functionIds).find(([, id]) => uri.includes(`"${id}"`))?.[0];
        return [`${String(method.Properties.HttpMethod)} ${pathOf(method.Properties.ResourceId)}`, fn];
      }),
    );
  }

  const gatewayResponses = Object.values(resources('AWS::ApiGateway::GatewayResponse')).map(
    (response) =>
      response.Properties as {
        ResponseType: string;
        StatusCode?: string;
        ResponseParameters: Record<string, string>;
        ResponseTemplates: Record<string, string>;
      },
  );
  const responseOf = (type: string) => gatewayResponses.find((response) => response.ResponseType === type);

  it('is one regional REST API with no gateway CORS, every content type binary (gzipped lists)', () => {
    expect(Object.keys(resources('AWS::ApiGateway::RestApi')).sort()).toEqual([logicalId(stack.managementApi.restApi), readApiId].sort());
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: 'prompt-service-test',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      BinaryMediaTypes: ['*/*'],
    });
    for (const method of Object.values(methods)) expect(method.Properties.HttpMethod).not.toBe('OPTIONS');
  });

  it('sends GET /prompts and GET /prompts/{promptId} to their functions, any method on /mcp to the MCP function, and every other method and path to the fallback', () => {
    expect(methodTable()).toEqual({
      'GET /prompts': 'listPrompts',
      'GET /prompts/{promptId}': 'getPrompt',
      'ANY /mcp': 'mcp',
      'ANY /': 'fallback',
      'ANY /{proxy+}': 'fallback',
      'ANY /prompts': 'fallback',
      'ANY /prompts/{promptId}': 'fallback',
    });
  });

  it('leaves every method open at the gateway: the functions check the key, and OPTIONS must pass without one', () => {
    for (const method of Object.values(methods)) expect(method.Properties.AuthorizationType).toBe('NONE');
  });

  it('proxies every method to Lambda (payload format 1.0)', () => {
    for (const method of Object.values(methods)) {
      expect(method.Properties.Integration).toMatchObject({ Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' });
    }
  });

  it.each(Object.entries(functionIds))('lets API Gateway invoke %s from this API only', (_name, id) => {
    const permissions = Object.values(resources('AWS::Lambda::Permission')).filter(
      (permission) => JSON.stringify(permission.Properties.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }),
    );
    expect(permissions.length).toBeGreaterThan(0);
    for (const permission of permissions) {
      expect(permission.Properties.Principal).toBe('apigateway.amazonaws.com');
      expect(JSON.stringify(permission.Properties.SourceArn)).toContain(JSON.stringify({ Ref: apiId }));
      // No test-invoke permissions for the console: only the deployed stage may invoke.
      expect(JSON.stringify(permission.Properties.SourceArn)).not.toContain('test-invoke-stage');
    }
  });

  it('serves on a stage named after the deployment, throttled as configured', () => {
    expect(Object.keys(readOnly(resources('AWS::ApiGateway::Stage')))).toHaveLength(1);
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      RestApiId: { Ref: apiId },
      StageName: 'test',
      MethodSettings: [Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 7, ThrottlingBurstLimit: 13, DataTraceEnabled: false })],
    });
  });

  it('throttles at 50 requests/s with a burst of 100 unless told otherwise', () => {
    synthesizeService().template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 })],
    });
  });

  it('writes JSON access logs that carry neither headers nor the query string, but the gateway error type', () => {
    const [stage] = Object.values(resources('AWS::ApiGateway::Stage'));
    const settings = stage?.Properties.AccessLogSetting as { DestinationArn: unknown; Format: string };
    const format = JSON.parse(settings.Format) as Record<string, string>;
    expect(format).toMatchObject({
      service: 'prompt-service-test',
      requestId: '$context.requestId',
      status: '$context.status',
      responseType: '$context.error.responseType',
      latencyMs: '$context.responseLatency',
      integrationLatencyMs: '$context.integrationLatency',
    });
    expect(settings.Format).not.toMatch(/header|querystring|authorization/i);
    const group = (settings.DestinationArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(resources('AWS::Logs::LogGroup')[group]).toBeDefined();
  });

  it.each([
    ['THROTTLED', '429', 'RATE_LIMITED', '1'],
    ['QUOTA_EXCEEDED', '429', 'RATE_LIMITED', '1'],
    ['WAF_FILTERED', '429', 'RATE_LIMITED', '60'],
    ['REQUEST_TOO_LARGE', '413', 'PAYLOAD_TOO_LARGE', undefined],
    ['MISSING_AUTHENTICATION_TOKEN', '404', 'NOT_FOUND', undefined],
    ['INTEGRATION_TIMEOUT', '503', 'SERVICE_UNAVAILABLE', '1'],
    ['DEFAULT_4XX', undefined, 'BAD_REQUEST', undefined],
    ['DEFAULT_5XX', undefined, 'INTERNAL_ERROR', undefined],
  ])("rewrites the gateway's own %s answer into %s %s: the API's JSON error, CORS for every origin, Retry-After %s", (type, status, code, retryAfter) => {
    const response = responseOf(type);
    expect(response?.StatusCode).toBe(status);
    const body = JSON.parse(response?.ResponseTemplates['application/json'] ?? '') as Record<string, unknown>;
    expect(body).toEqual({ error: expect.any(String), code });
    expect(response?.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
      'gatewayresponse.header.Access-Control-Expose-Headers':
        "'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag, X-Prompt-Rollout'",
      'gatewayresponse.header.Content-Type': "'application/json'",
      'gatewayresponse.header.Cache-Control': "'no-store'",
    });
    expect(response?.ResponseParameters['gatewayresponse.header.Retry-After']).toBe(retryAfter === undefined ? undefined : `'${retryAfter}'`);
  });

  it('leaves no answer of the gateway in its own format: every 4xx and 5xx has a gateway response', () => {
    const types = gatewayResponses.map((response) => response.ResponseType);
    expect(types).toEqual(expect.arrayContaining(['DEFAULT_4XX', 'DEFAULT_5XX']));
    for (const response of gatewayResponses) {
      expect(JSON.stringify(response.ResponseTemplates)).not.toContain('message');
    }
  });

  it('has no WAF unless asked', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });

  it('puts a per-IP rate rule in front of the stage with -c wafRateLimit=<requests per 5 minutes>', () => {
    const waf = synthesizeService({ context: { wafRateLimit: '2000' } });
    waf.template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: [
        Match.objectLike({
          Action: { Block: {} },
          Statement: { RateBasedStatement: { Limit: 2000, AggregateKeyType: 'IP', EvaluationWindowSec: 300 } },
        }),
      ],
    });
    const [association] = Object.values(waf.template.findResources('AWS::WAFv2::WebACLAssociation'));
    expect(JSON.stringify(association?.Properties.ResourceArn)).toContain('/stages/');
  });
});

describe("the account's API Gateway logging role", () => {
  it('is set, retained, and can write logs of this account and region only, with no managed policy', () => {
    template.hasResource('AWS::ApiGateway::Account', { DeletionPolicy: 'Retain' });
    const [roleId] = Object.entries(resources('AWS::IAM::Role')).find(([, role]) =>
      JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('apigateway.amazonaws.com'),
    ) ?? [''];
    const role = resources('AWS::IAM::Role')[roleId];
    expect(role?.DeletionPolicy).toBe('Retain');
    expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
    expect(JSON.stringify(role?.Properties.Policies)).toContain(':logs:');
    template.hasResourceProperties('AWS::ApiGateway::Account', { CloudWatchRoleArn: { 'Fn::GetAtt': [roleId, 'Arn'] } });
  });

  it('is in place before any stage that writes access logs is deployed: every such stage depends on it', () => {
    const [accountId] = Object.keys(resources('AWS::ApiGateway::Account'));
    const loggingStages = Object.entries(template.findResources('AWS::ApiGateway::Stage')).filter(
      ([, stage]) => stage.Properties.AccessLogSetting !== undefined,
    );
    // The read API's and the management API's.
    expect(loggingStages).toHaveLength(2);
    for (const [, stage] of loggingStages) expect(stage.DependsOn).toContain(accountId);
  });

  it('is left alone with -c apiGatewayAccountRole=false, for accounts that set it elsewhere', () => {
    synthesizeService({ context: { apiGatewayAccountRole: 'false' } }).template.resourceCountIs('AWS::ApiGateway::Account', 0);
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
  const metricNamesOf = (alarm: Resource) => queriesOf(alarm).flatMap((query) => (query.MetricStat ? [query.MetricStat.Metric.MetricName] : []));

  it('alarm on the share of 5xx responses of the read API', () => {
    const alarm = alarms.find(
      (candidate) =>
        candidate.Properties.Metrics &&
        JSON.stringify(candidate.Properties.Metrics).includes('"prompt-service-test"') &&
        metricNamesOf(candidate).includes('5XXError'),
    );
    expect(alarm).toBeDefined();
    expect(queriesOf(alarm as Resource).find((query) => query.Expression)?.Expression).toBe('IF(requests > 0, 100 * errors / requests, 0)');
    expect(metricNamesOf(alarm as Resource).sort()).toEqual(['5XXError', 'Count']);
    for (const query of queriesOf(alarm as Resource).filter((q) => q.MetricStat)) {
      expect(query.MetricStat?.Metric.Dimensions).toEqual([{ Name: 'ApiName', Value: 'prompt-service-test' }]);
    }
    expect(alarm?.Properties).toMatchObject({ Threshold: 5, ComparisonOperator: 'GreaterThanThreshold' });
  });

  it('alarm on any throttled request of the table, of every operation a function makes', () => {
    const alarm = alarms.find((candidate) => candidate.Properties.Metrics && metricNamesOf(candidate).includes('ThrottledRequests'));
    const operations = queriesOf(alarm as Resource).flatMap((query) =>
      (query.MetricStat?.Metric.Dimensions ?? []).filter((d) => d.Name === 'Operation').map((d) => d.Value),
    );
    const granted = Object.values(FUNCTION_ACCESS).flatMap((access) => access.table.flatMap((grant) => grant.actions));
    // A transaction's ConditionCheck has no metric of its own: its throttles are the transaction's, TransactWriteItems.
    const named = granted.map((action) => (action === 'dynamodb:ConditionCheckItem' ? 'TransactWriteItems' : action.replace('dynamodb:', '')));
    expect(operations.sort()).toEqual([...new Set(named)].sort());
    expect(operations).toEqual(expect.arrayContaining(['GetItem', 'Query', 'UpdateItem', 'PutItem', 'DeleteItem', 'BatchGetItem', 'TransactWriteItems']));
    for (const query of queriesOf(alarm as Resource).filter((q) => q.MetricStat)) {
      expect(query.MetricStat?.Metric.Dimensions).toContainEqual({ Name: 'TableName', Value: { Ref: tableId } });
    }
    expect(alarm?.Properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('alarm on errors (crash, init failure, timeout) of each read API function', () => {
    const errorAlarms = alarms.filter((alarm) => alarm.Properties.MetricName === 'Errors');
    const watched = errorAlarms.map((alarm) => alarm.Properties.Dimensions as { Name: string; Value: { Ref: string } }[]);
    expect(new Set(watched.map((dimensions) => dimensions[0]?.Name))).toEqual(new Set(['FunctionName']));
    expect(watched.map((dimensions) => dimensions[0]?.Value.Ref)).toEqual(expect.arrayContaining(Object.values(functionIds)));
    for (const alarm of errorAlarms) {
      expect(alarm.Properties).toMatchObject({ Namespace: 'AWS/Lambda', Statistic: 'Sum', Threshold: 1 });
    }
  });

  it("alarm on any quota unit that could not be given back, from the functions' RefundFailed metric", () => {
    const alarm = alarms.find((candidate) => candidate.Properties.MetricName === METRIC.refundFailed);
    expect(alarm?.Properties).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      Dimensions: [{ Name: 'service', Value: 'prompt-service-test' }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('all notify the alarm topic, when they fire and when they clear, which refuses plain-HTTP publishing', () => {
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
    }
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('subscribe alarmEmail to the topic when it is given, and nobody otherwise', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    synthesizeService({ context: { alarmEmail: 'ops@prompts.test' } }).template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@prompts.test',
    });
  });
});

describe('the dashboard', () => {
  const [dashboard] = Object.values(resources('AWS::CloudWatch::Dashboard'));
  /** The body CloudWatch gets, with each CloudFormation reference in it written as JSON text. */
  const body = ((dashboard?.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] } | undefined)?.['Fn::Join'][1] ?? [])
    .map((part) => (typeof part === 'string' ? part : JSON.stringify(JSON.stringify(part)).slice(1, -1)))
    .join('');
  const widgets = (JSON.parse(body) as { widgets: { properties: { metrics?: unknown[][] } }[] }).widgets;
  const graphed = widgets.flatMap((widget) => widget.properties.metrics ?? []);

  it('is one dashboard named after the stage and the region (dashboards are global to an account)', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    expect(dashboard?.Properties.DashboardName).toEqual({ 'Fn::Join': ['', ['prompts-test-', { Ref: 'AWS::Region' }, '-dashboard']] });
  });

  it('graphs requests by route and status, searching every combination the functions published', () => {
    expect(graphed).toContainEqual([
      {
        expression: `SEARCH('{${METRICS_NAMESPACE},service,route,status} MetricName="${METRIC.requests}" service="prompt-service-test"', 'Sum', 300)`,
      },
    ]);
  });

  it.each([METRIC.unauthorized, METRIC.usageLimitExceeded, METRIC.serviceUnavailable, METRIC.gatewayThrottled, METRIC.storeLatency, METRIC.latency])(
    "graphs %s of this stage's service",
    (name) => {
      expect(graphed).toContainEqual(expect.arrayContaining([METRICS_NAMESPACE, name, 'service', 'prompt-service-test']));
    },
  );

  it('shows the failed-refund alarm', () => {
    const alarmId = Object.entries(resources('AWS::CloudWatch::Alarm')).find(([, alarm]) => alarm.Properties.MetricName === METRIC.refundFailed)?.[0];
    const alarmWidgets = widgets.map((widget) => widget.properties as { annotations?: { alarms?: string[] } });
    const shown = alarmWidgets.flatMap((properties) => properties.annotations?.alarms ?? []);
    expect(shown).toEqual([JSON.stringify({ 'Fn::GetAtt': [alarmId, 'Arn'] })]);
  });

  it("counts the gateway's own 429s (throttle and per-IP rule) from its access log", () => {
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ ($.responseType = "THROTTLED") || ($.responseType = "WAF_FILTERED") }',
      MetricTransformations: [
        {
          MetricNamespace: METRICS_NAMESPACE,
          MetricName: METRIC.gatewayThrottled,
          MetricValue: '1',
          Dimensions: [{ Key: 'service', Value: '$.service' }],
        },
      ],
    });
  });
});

describe('outputs', () => {
  it("give the API URL of the deployment's stage, the table name and the dashboard", () => {
    const [apiId] = Object.keys(resources('AWS::ApiGateway::RestApi'));
    const outputs = template.findOutputs('*');
    expect(JSON.stringify(outputs.ApiUrl?.Value)).toContain(JSON.stringify({ Ref: apiId }));
    expect(JSON.stringify(outputs.ApiUrl?.Value)).toMatch(/"https:\/\/".*\.execute-api\..*\/".*"\/"/);
    expect(outputs.DashboardName?.Value).toEqual({ Ref: Object.keys(resources('AWS::CloudWatch::Dashboard'))[0] });
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

  it("name every function of the stack, the management API's, the rollout automation's and the events' included, by its SAM id", () => {
    const outputs = template.findOutputs('*');
    const named = Object.entries(resources('AWS::Lambda::Function'))
      .filter(([, fn]) => fn.Metadata?.SamResourceId !== undefined)
      .map(([logicalId, fn]) => [`${String(fn.Metadata?.SamResourceId)}Name`, { Ref: logicalId }]);
    expect(named).toHaveLength(15);
    for (const [output, value] of named) expect([output, outputs[output as string]?.Value]).toEqual([output, value]);
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
