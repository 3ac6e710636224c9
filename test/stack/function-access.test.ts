import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { Aws, type CfnElement } from 'aws-cdk-lib';
import { bedrockResourceArns, DEFAULT_CATALOG } from '../../lambda/models/catalog';
import ts from 'typescript';
import { adminIndexKeys, keys, prefixes } from '../../lambda/table/schema';
import type { ManagementRoute } from '../../lambda/management-api/route';
import { ALL_ROUTES, MANAGEMENT_FUNCTIONS, routesOf } from '../../lambda/management-api/routes';
import { listAudit } from '../../lambda/table/audit-log';
import { FUNCTION_ACCESS, type FunctionAccess } from '../../lib/function-access';
import { FUNCTION_IDS } from '../../lib/prompt-service-stack';
import { EVENT_DELIVERY_FUNCTIONS } from '../../lib/event-delivery';
import { ROLLOUT_AUTOMATION_FUNCTIONS } from '../../lib/rollout-automation';
import { ManagementHarness } from '../support/management-harness';
import { CodeAnalysis, type CodeReach } from './sdk-calls';
import { synthesizeService } from './synth';

/**
 * Each function's role holds exactly what its code calls (issue 27): the calls are read from the code
 * (sdk-calls.ts), held against the reviewed table lib/function-access.ts, and the table against the
 * synthesized policies. A call added to the code without the table fails here, and so does a right the
 * code no longer uses.
 */

const ROOT = path.join(__dirname, '../..');
const READ_ENTRIES: Readonly<Record<string, string>> = {
  [FUNCTION_IDS.getPrompt]: 'lambda/read-api/get-prompt.ts',
  [FUNCTION_IDS.listPrompts]: 'lambda/read-api/list-prompts.ts',
  [FUNCTION_IDS.fallback]: 'lambda/read-api/fallback.ts',
  [FUNCTION_IDS.mcp]: 'lambda/mcp/mcp-function.ts',
};
const ENTRIES: Readonly<Record<string, string>> = {
  ...READ_ENTRIES,
  ...Object.fromEntries(MANAGEMENT_FUNCTIONS.map((fn) => [fn.id, fn.entry])),
  ...Object.fromEntries(ROLLOUT_AUTOMATION_FUNCTIONS.map((fn) => [fn.id, fn.entry])),
  ...Object.fromEntries(EVENT_DELIVERY_FUNCTIONS.map((fn) => [fn.id, fn.entry])),
};
const FUNCTIONS = Object.keys(ENTRIES);

/**
 * Which key builders of lambda/table/schema.ts name a partition, and which one: every builder is in
 * exactly one list (a test below), so a new one cannot go unclassified.
 */
type Builder = (...args: string[]) => { pk: string };
const TABLE_PARTITIONS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(keys).map(([name, build]) => [`keys.${name}`, (build as Builder)('*', '*', '1.0.0').pk])),
  'prefixes.accountPartition': prefixes.accountPartition('*'),
};
const INDEX_PARTITIONS: Readonly<Record<string, string>> = {
  'adminIndexKeys.keysOf': adminIndexKeys.keysOf('*'),
  'adminIndexKeys.membershipsOf': adminIndexKeys.membershipsOf('*'),
  'adminIndexKeys.allAccounts': adminIndexKeys.allAccounts,
  'adminIndexKeys.allRollouts': adminIndexKeys.allRollouts,
};
/** Sort-key prefixes, and the index attributes written on items (which need no index right). */
const NOT_PARTITIONS = [
  ...Object.keys(prefixes)
    .filter((name) => name !== 'accountPartition')
    .map((name) => `prefixes.${name}`),
  'adminIndexKeys.account',
  'adminIndexKeys.apiKey',
  'adminIndexKeys.member',
  'adminIndexKeys.apiKeyPrefix',
  'adminIndexKeys.memberPrefix',
  'adminIndexKeys.rollout',
];

const analysis = new CodeAnalysis(Object.values(ENTRIES));

/** Each route of the handler files, found in the array literal that holds it (`keyRoutes[2]`, ...). */
function routeNodes(): Map<ManagementRoute, ts.Node> {
  const nodes = new Map<ManagementRoute, ts.Node>();
  const dir = 'lambda/management-api/handlers';
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const file = `${dir}/${name}`;
    const module = require(path.join(ROOT, file)) as Record<string, unknown>;
    for (const [exported, value] of Object.entries(module)) {
      if (!exported.endsWith('Routes') || !Array.isArray(value)) continue;
      const literal = analysis.constInitializer(file, exported);
      if (!ts.isArrayLiteralExpression(literal) || literal.elements.length !== value.length) {
        throw new Error(`${file} ${exported}: not an array literal of its routes, one element each`);
      }
      for (const [index, route] of (value as ManagementRoute[]).entries()) nodes.set(route, literal.elements[index] as ts.Node);
    }
  }
  return nodes;
}
const ROUTE_NODES = routeNodes();

/** The `refuse` step of the management chain's refusal audit: it records a refused attempt, for routes that have an `action`. */
function refusalRecorder(): ts.Node {
  let found: ts.Node | undefined;
  const search = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.name.getText() === 'refuse' && node.initializer) found = node.initializer;
    ts.forEachChild(node, search);
  };
  search(analysis.sourceFile('lambda/management-api/middleware/refusal-audit.ts'));
  if (!found) throw new Error('middleware/refusal-audit.ts has no `refuse`: the analysis of ManageActivity must be revisited');
  return found;
}

/**
 * A read function runs its entry file. A management function runs its entry file and the handlers of its
 * own routes: MANAGEMENT_FUNCTIONS, which every management bundle holds, is where the others are, and is not followed.
 * A function none of whose routes changes anything never records a refusal (the `refuse` step, which
 * the last test here checks by running it).
 */
function reachOf(functionId: string): CodeReach {
  const entry = ENTRIES[functionId] as string;
  const management = MANAGEMENT_FUNCTIONS.find((fn) => fn.id === functionId);
  if (!management) return analysis.reach({ files: [entry] });
  const routes = routesOf(functionId);
  const nodes = routes.map((route) => {
    const node = ROUTE_NODES.get(route);
    if (!node) throw new Error(`${route.method} ${route.path} is not in a handlers/*Routes array`);
    return node;
  });
  const barriers: ts.Node[] = [analysis.constInitializer('lambda/management-api/routes.ts', 'MANAGEMENT_FUNCTIONS')];
  if (!routes.some((route) => route.action)) barriers.push(refusalRecorder());
  return analysis.reach({ files: [entry], nodes, barriers });
}
const REACH = new Map(FUNCTIONS.map((id) => [id, reachOf(id)]));

/** What a function's code needs, in the table's terms. */
interface Needs {
  readonly dynamodb: string[];
  readonly userPool: string[];
  readonly bus: string[];
  readonly deliveryQueue: string[];
  readonly webhookKey: string[];
  readonly models: string[];
  readonly endpointKeys: string[];
  readonly queries: string[];
  readonly tablePartitions: string[];
  readonly indexPartitions: string[];
}

const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort();

/**
 * IAM has no action for a transaction: each of its writes needs its own (DynamoDB's "Using IAM with
 * transactions"). lambda/table/transaction.ts sends Put, Update and Delete writes; a ConditionCheck needs
 * `dynamodb:ConditionCheckItem`, found where the code builds one (sdk-calls.ts, `conditionCheck`).
 */
const TRANSACTION_WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];

function needsOf(reach: CodeReach): Needs {
  const actions = [...reach.actions.keys()].flatMap((action) => (action === 'dynamodb:TransactWriteItems' ? TRANSACTION_WRITES : [action]));
  const builders = [...reach.keyBuilders];
  return {
    dynamodb: sorted(actions.filter((action) => action.startsWith('dynamodb:'))),
    userPool: sorted(actions.filter((action) => action.startsWith('cognito-idp:'))),
    bus: sorted(actions.filter((action) => action.startsWith('events:'))),
    deliveryQueue: sorted(actions.filter((action) => action.startsWith('sqs:'))),
    webhookKey: sorted(actions.filter((action) => action.startsWith('kms:'))),
    models: sorted(actions.filter((action) => action.startsWith('bedrock:'))),
    endpointKeys: sorted(actions.filter((action) => action.startsWith('secretsmanager:'))),
    queries: sorted(reach.queried),
    tablePartitions: sorted(builders.flatMap((name) => TABLE_PARTITIONS[name] ?? [])),
    indexPartitions: sorted(builders.flatMap((name) => INDEX_PARTITIONS[name] ?? [])),
  };
}

function grantedBy(access: FunctionAccess): Needs {
  const on = (target: 'table' | 'index') => access.table.filter((grant) => grant.on === target);
  return {
    dynamodb: sorted(access.table.flatMap((grant) => grant.actions)),
    userPool: sorted(access.userPool),
    bus: sorted(access.bus ?? []),
    deliveryQueue: sorted(access.deliveryQueue ?? []),
    webhookKey: sorted(access.webhookKey ?? []),
    models: sorted(access.models ?? []),
    endpointKeys: sorted(access.endpointKeys ?? []),
    queries: sorted(access.table.filter((grant) => grant.actions.includes('dynamodb:Query')).map((grant) => grant.on)),
    tablePartitions: sorted(on('table').flatMap((grant) => grant.partitions)),
    indexPartitions: sorted(on('index').flatMap((grant) => grant.partitions)),
  };
}

describe('what each function calls, read from its code', () => {
  it('classifies every key builder of table-schema.ts once: a partition of the table, of the index, or neither', () => {
    const all = [
      ...Object.keys(keys).map((name) => `keys.${name}`),
      ...Object.keys(prefixes).map((name) => `prefixes.${name}`),
      ...Object.keys(adminIndexKeys).map((name) => `adminIndexKeys.${name}`),
    ];
    const classified = [...Object.keys(TABLE_PARTITIONS), ...Object.keys(INDEX_PARTITIONS), ...NOT_PARTITIONS];
    expect(classified.sort()).toEqual(all.sort());
  });

  it('follows every management route from the handler files, and no route is defined elsewhere', () => {
    expect(ALL_ROUTES.every((route) => ROUTE_NODES.has(route))).toBe(true);
  });

  it.each(FUNCTIONS)('%s: the reviewed table (lib/function-access.ts) grants exactly what its code calls, where it calls it', (id) => {
    const reach = REACH.get(id) as CodeReach;
    const needed = needsOf(reach);
    const granted = grantedBy(FUNCTION_ACCESS[id] as FunctionAccess);
    // Where the code makes each call, shown beside a difference.
    const calls = Object.fromEntries(reach.actions);
    expect({ ...granted, calls }).toEqual({ ...needed, calls });
    for (const grant of (FUNCTION_ACCESS[id] as FunctionAccess).table.filter((candidate) => candidate.on === 'index')) {
      expect(grant.actions).toEqual(['dynamodb:Query']);
    }
  });

  it('finds the calls a function is known to make and not those it is known not to', () => {
    // The analysis is live: the members function creates people in the pool, the read API never deletes.
    expect(REACH.get('ManageMembers')?.actions.has('cognito-idp:AdminCreateUser')).toBe(true);
    expect(REACH.get(FUNCTION_IDS.getPrompt)?.actions.has('dynamodb:UpdateItem')).toBe(true);
    expect(REACH.get(FUNCTION_IDS.getPrompt)?.actions.has('dynamodb:DeleteItem')).toBe(false);
    expect(REACH.get('ManageKeys')?.actions.has('cognito-idp:AdminCreateUser')).toBe(false);
    // The rollout automation lists the active rollouts on the index and changes each in a transaction.
    for (const id of ['RolloutSteps', 'GuardAlarm']) {
      expect([id, REACH.get(id)?.queried.has('index'), REACH.get(id)?.actions.has('dynamodb:TransactWriteItems')]).toEqual([id, true, true]);
    }
    // A change decided on what it read of an item it does not write holds it with a ConditionCheck: the label moves'
    // approval gate does; the read API and the event functions make no transaction at all.
    expect(REACH.get('ManagePrompts')?.actions.has('dynamodb:ConditionCheckItem')).toBe(true);
    for (const id of [FUNCTION_IDS.getPrompt, 'ManageActivity', 'EventDispatcher', 'WebhookDelivery']) {
      expect([id, REACH.get(id)?.actions.has('dynamodb:ConditionCheckItem')]).toEqual([id, false]);
    }
  });

  it('gives the user pool to the members function alone, and writes to no function that only reads', () => {
    const withPool = FUNCTIONS.filter((id) => (FUNCTION_ACCESS[id]?.userPool.length ?? 0) > 0);
    expect(withPool).toEqual(['ManageMembers']);
    const activity = grantedBy(FUNCTION_ACCESS.ManageActivity as FunctionAccess).dynamodb;
    expect(activity).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query']);
  });
});

describe('the synthesized policies', () => {
  const { stack, template } = synthesizeService();
  type Statement = { Sid?: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, string[]>> };
  const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>;
  const logicalId = (construct: { node: { defaultChild?: unknown } }): string => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const constructs = {
    ...stack.functions,
    ...stack.managementApi.functions,
    steps: stack.rollouts.steps,
    guard: stack.rollouts.guard,
    dispatcher: stack.events.dispatcher,
    delivery: stack.events.delivery,
  } as Record<string, { function: { node: { defaultChild?: unknown } } }>;
  const byId = new Map(Object.values(constructs).map((fn) => [(fn as unknown as { node: { id: string } }).node.id, logicalId(fn.function)]));
  const tableArn = { 'Fn::GetAtt': [logicalId(stack.table.table), 'Arn'] };
  const poolArn = { 'Fn::GetAtt': [logicalId(stack.userPool.pool), 'Arn'] };
  const deadLettersArn = { 'Fn::GetAtt': [logicalId(stack.rollouts.guardDeadLetters), 'Arn'] };
  /** The run function's models: the default catalog's ARNs, exactly. */
  const catalogModels = JSON.stringify(
    stack.resolve(bedrockResourceArns(DEFAULT_CATALOG, { partition: Aws.PARTITION, region: Aws.REGION, account: Aws.ACCOUNT_ID })),
  );
  const arnOf = (construct: { node: { defaultChild?: unknown } }, attribute = 'Arn') => JSON.stringify({ 'Fn::GetAtt': [logicalId(construct), attribute] });
  /** The events' resources (lib/event-delivery.ts), by the name a statement's `on` gives them. */
  const eventResources = new Map<string, string>([
    [arnOf(stack.events.bus), 'eventBus'],
    [arnOf(stack.events.deliveryQueue), 'deliveryQueue'],
    [arnOf(stack.events.dispatchFailures), 'dispatchFailures'],
    [arnOf(stack.events.webhookKey), 'webhookKey'],
    [arnOf(stack.table.table, 'StreamArn'), 'tableStream'],
  ]);
  /**
   * What each event source mapping needs, granted by CDK with the mapping: to read the table's stream (ListStreams
   * names no resource) and send to its on-failure queue; to receive, delete and hide the delivery queue's messages.
   */
  const EVENT_SOURCE_RIGHTS: Readonly<Record<string, readonly { sid: undefined; on: string; actions: string[]; partitions: string[] }[]>> = {
    EventDispatcher: [
      { sid: undefined, on: 'tableStream', actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], partitions: [] },
      { sid: undefined, on: 'anyResource', actions: ['dynamodb:ListStreams'], partitions: [] },
      { sid: undefined, on: 'dispatchFailures', actions: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'], partitions: [] },
    ],
    WebhookDelivery: [
      {
        sid: undefined,
        on: 'deliveryQueue',
        actions: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'],
        partitions: [],
      },
    ],
  };

  function statementsOf(functionLogicalId: string): Statement[] {
    const fn = resources[functionLogicalId];
    if (!fn) throw new Error(`no function ${functionLogicalId} in the template`);
    const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    return Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties.Roles) === JSON.stringify([{ Ref: role }]))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  }

  /** A statement as the table writes it: what it allows, on the table, its index, the pool or the function's own logs. */
  function normalized(statement: Statement) {
    const resource = JSON.stringify(statement.Resource);
    const on =
      resource === JSON.stringify(tableArn)
        ? 'table'
        : resource === JSON.stringify({ 'Fn::Join': ['', [tableArn, '/index/gsi1']] })
          ? 'index'
          : resource === JSON.stringify(poolArn)
            ? 'userPool'
            : resource === JSON.stringify(deadLettersArn)
              ? 'deadLetterQueue'
              : eventResources.has(resource)
                ? (eventResources.get(resource) as string)
                : resource === catalogModels
                  ? 'catalogModels'
                  : resource === '"*"'
                    ? 'anyResource'
                    : resource.includes('Logs') && (statement.Action as string[]).every((action) => action.startsWith('logs:'))
                      ? 'ownLogs'
                      : resource;
    return {
      sid: statement.Sid,
      on,
      actions: sorted(Array.isArray(statement.Action) ? statement.Action : [statement.Action]),
      partitions: statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? [],
    };
  }

  it("covers every function of the stack but CDK's deploy-time upload function", () => {
    const inTemplate = Object.entries(resources)
      .filter(([id, resource]) => resource.Type === 'AWS::Lambda::Function' && !id.startsWith('CustomCDKBucketDeployment'))
      .map(([id]) => id);
    expect(inTemplate.sort()).toEqual(FUNCTIONS.map((id) => byId.get(id)).sort());
  });

  it("lets the dispatcher alone put events, on the stack's bus alone; the webhooks function alone seal secrets, the delivery function alone open them", () => {
    const holders = (action: string) =>
      FUNCTIONS.flatMap((id) =>
        statementsOf(byId.get(id) as string)
          .map(normalized)
          .filter((statement) => statement.actions.includes(action))
          .map((statement) => `${id} on ${statement.on}`),
      );
    expect(holders('events:PutEvents')).toEqual(['EventDispatcher on eventBus']);
    expect(holders('kms:Decrypt')).toEqual(['WebhookDelivery on webhookKey']);
    // Who seals secrets may only encrypt: nobody both seals and opens them.
    expect(holders('kms:Encrypt')).toEqual(['ManageWebhooks on webhookKey']);
  });

  it.each(FUNCTIONS)("%s's role allows its own logs and the table's statements, each on its own resource and partitions, nothing else", (id) => {
    const access = FUNCTION_ACCESS[id] as FunctionAccess;
    const expected = [
      { sid: undefined, on: 'ownLogs', actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], partitions: [] },
      // Lambda puts an alarm's event it could not act on in the guard's dead-letter queue, with the function's role.
      ...(id === 'GuardAlarm' ? [{ sid: undefined, on: 'deadLetterQueue', actions: ['sqs:SendMessage'], partitions: [] }] : []),
      ...access.table.map((grant) => ({ sid: grant.sid, on: grant.on, actions: sorted(grant.actions), partitions: [...grant.partitions] })),
      ...(access.userPool.length > 0 ? [{ sid: 'UserPool', on: 'userPool', actions: sorted(access.userPool), partitions: [] }] : []),
      ...(access.bus ? [{ sid: 'EventBus', on: 'eventBus', actions: sorted(access.bus), partitions: [] }] : []),
      ...(access.deliveryQueue ? [{ sid: 'DeliveryQueue', on: 'deliveryQueue', actions: sorted(access.deliveryQueue), partitions: [] }] : []),
      ...(access.webhookKey ? [{ sid: 'WebhookSecretsKey', on: 'webhookKey', actions: sorted(access.webhookKey), partitions: [] }] : []),
      // The default catalog's models, and no endpoint key: it names none (test/stack/run-stack.test.ts has one that does).
      ...(access.models ? [{ sid: 'Models', on: 'catalogModels', actions: sorted(access.models), partitions: [] }] : []),
      ...(EVENT_SOURCE_RIGHTS[id] ?? []),
    ];
    // In any order: CDK adds an event source mapping's rights when the mapping is made.
    const byJson = (statements: readonly unknown[]) => statements.map((each) => JSON.stringify(each)).sort();
    expect(byJson(statementsOf(byId.get(id) as string).map(normalized))).toEqual(byJson(expected));
  });
});

describe('a function whose routes change nothing records no refusal', () => {
  const harness = new ManagementHarness();
  beforeAll(async () => {
    await harness.start();
    await harness.fixtures.account('acme');
  });
  afterAll(async () => harness.local.close());

  it('ManageActivity refuses a bad month with 400 and writes no audit entry, where ManageKeys records its refused change', async () => {
    const owner = await harness.person('owner@acme.test', 'acme', 'owner');
    const entriesBefore = (await listAudit(harness.table, 'acme')).entries.length;

    const usage = await harness.send('GET', '/api/accounts/acme/usage?month=someday', { as: owner });
    expect(usage.status).toBe(400);
    expect((await listAudit(harness.table, 'acme')).entries).toHaveLength(entriesBefore);

    // The read-back sees a refusal where one is recorded.
    const patch = await harness.send('PATCH', '/api/accounts/acme/keys/missing', { as: owner, body: { monthlyLimit: 'lots' } });
    expect(patch.status).toBe(400);
    expect((await listAudit(harness.table, 'acme')).entries).toHaveLength(entriesBefore + 1);
  });
});
