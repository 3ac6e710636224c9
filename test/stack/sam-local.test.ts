import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { hashApiKey, isWellFormedApiKey, keyIdFromHash } from '../../lambda/domain/api-key';
import { samFunctionId } from '../../lib/api-function';
import { MANAGEMENT_FUNCTIONS } from '../../lambda/management-api/routes';
import { FUNCTION_IDS } from '../../lib/prompt-service-stack';
import { DISPATCH_FILTER, EVENT_DELIVERY_FUNCTIONS } from '../../lib/event-delivery';
import { ROLLOUT_AUTOMATION_FUNCTIONS } from '../../lib/rollout-automation';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../lambda/table/schema';
import { LocalSecretSealer } from '../../lambda/webhook-delivery/secret-sealer';
import { generateSecret } from '../../lambda/webhook-delivery/signature';
import { type Receiver, startReceiver } from '../webhooks/receiver';
import { FixtureStore } from '../support/fixture-store';
import { prompt, version } from '../support/fixtures';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { synthesizeService, TEST_UPGRADE_URL } from './synth';

const run = promisify(execFile);
const EVENTS_DIR = path.join(__dirname, '../../sample-events');
const STACK_NAME = 'PromptService-test';
/** Every function of the stack: the read API's, the management API's, the rollout automation's and the events'. */
const ALL_FUNCTION_IDS = [
  ...Object.values(FUNCTION_IDS),
  ...MANAGEMENT_FUNCTIONS.map((fn) => fn.id),
  ...ROLLOUT_AUTOMATION_FUNCTIONS.map((fn) => fn.id),
  ...EVENT_DELIVERY_FUNCTIONS.map((fn) => fn.id),
];

interface CfnResource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
}
type Ref = { Ref: string };
type GetAtt = { 'Fn::GetAtt': [string, string] };

/**
 * What `sam local` reads: the template file `cdk synth` writes, and the asset folders beside it.
 * Synthesized the way the CLI does it (path and asset metadata on), bundled with the real esbuild.
 */
const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'prompt-service-synth-'));
synthesizeService({ bundle: true, outdir }).app.synth();
const templateFile = path.join(outdir, `${STACK_NAME}.template.json`);
const resources = (JSON.parse(fs.readFileSync(templateFile, 'utf8')) as { Resources: Record<string, CfnResource> }).Resources;

const functions = Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::Lambda::Function');
const functionBySamId = new Map(functions.map(([logicalId, resource]) => [resource.Metadata?.SamResourceId, { logicalId, resource }]));

function functionFor(samId: string): { logicalId: string; resource: CfnResource } {
  const found = functionBySamId.get(samId);
  if (!found) throw new Error(`no function with SamResourceId ${samId} in ${templateFile}`);
  return found;
}

/** The bundle SAM mounts into its container: `<template dir>/<aws:asset:path>/index.mjs`. */
function bundleDirOf(samId: string): string {
  return path.join(outdir, String(functionFor(samId).resource.Metadata?.['aws:asset:path']));
}

/** A REST resource's path, as SAM resolves it: PathPart after PathPart, up through ParentId to the root. */
function resourcePath(resourceId: unknown): string {
  const ref = (resourceId as Partial<Ref>).Ref;
  const resource = ref === undefined ? undefined : resources[ref];
  if (resource?.Type !== 'AWS::ApiGateway::Resource') return '/';
  const parent = resourcePath(resource.Properties.ParentId);
  return `${parent === '/' ? '' : parent}/${String(resource.Properties.PathPart)}`;
}

/** SAM resolves a method to a function through its ResourceId's path and the function ARN in Integration.Uri. */
function samIdBehindMethod(method: string, path: string): unknown {
  const found = Object.values(resources).find(
    (resource) =>
      resource.Type === 'AWS::ApiGateway::Method' && resource.Properties.HttpMethod === method && resourcePath(resource.Properties.ResourceId) === path,
  );
  const uri = (found?.Properties.Integration as { Uri?: { 'Fn::Join': [string, unknown[]] } } | undefined)?.Uri;
  const arn = uri?.['Fn::Join'][1].find((part): part is GetAtt => typeof part === 'object' && part !== null && 'Fn::GetAtt' in part);
  return resources[arn?.['Fn::GetAtt'][0] ?? '']?.Metadata?.SamResourceId;
}

/**
 * The function an EventBridge event goes to: the rule that matches it (a schedule for a `Scheduled Event`, a pattern
 * by its source and detail type), and that rule's target. A pattern's filter on `detail` is left aside, so an event the
 * rule would not send (an alarm going to OK) is still paired with the function it is a sample for.
 */
function samIdBehindRule(event: { readonly source?: unknown; readonly 'detail-type'?: unknown }): unknown {
  const rule = Object.values(resources).find((resource) => {
    if (resource.Type !== 'AWS::Events::Rule') return false;
    if (resource.Properties.ScheduleExpression !== undefined) return event.source === 'aws.events' && event['detail-type'] === 'Scheduled Event';
    const pattern = resource.Properties.EventPattern as { source?: unknown[]; 'detail-type'?: unknown[] } | undefined;
    return pattern?.source?.includes(event.source) === true && pattern['detail-type']?.includes(event['detail-type']) === true;
  });
  const [target] = (rule?.Properties.Targets ?? []) as { Arn: GetAtt }[];
  return resources[target?.Arn['Fn::GetAtt'][0] ?? '']?.Metadata?.SamResourceId;
}

/**
 * The function a stream or queue record goes to: the event source mapping on the table's stream (`aws:dynamodb`) or
 * on a queue (`aws:sqs`), and the function it names.
 */
function samIdBehindMapping(record: { readonly eventSource?: unknown }): unknown {
  const mapping = Object.values(resources).find((resource) => {
    if (resource.Type !== 'AWS::Lambda::EventSourceMapping') return false;
    const [source, attribute] = (resource.Properties.EventSourceArn as GetAtt)['Fn::GetAtt'];
    const type = resources[source]?.Type;
    return record.eventSource === 'aws:dynamodb'
      ? type === 'AWS::DynamoDB::Table' && attribute === 'StreamArn'
      : record.eventSource === 'aws:sqs' && type === 'AWS::SQS::Queue';
  });
  return resources[(mapping?.Properties.FunctionName as Ref | undefined)?.Ref ?? '']?.Metadata?.SamResourceId;
}

/** Whether a record matches an event filter pattern of literal values (what the dispatcher's filter is). */
function matchesPattern(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.includes(value);
  if (typeof pattern !== 'object' || pattern === null) return false;
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(pattern).every(([name, inner]) => matchesPattern(inner, (value as Record<string, unknown>)[name]));
}

interface RecordsEvent {
  readonly Records: readonly { readonly eventSource?: string; readonly eventName?: string }[];
}

function readRecordsEvent(name: string): RecordsEvent {
  return JSON.parse(fs.readFileSync(path.join(EVENTS_DIR, name), 'utf8')) as RecordsEvent;
}

function readEvent(name: string): APIGatewayProxyEvent {
  return JSON.parse(fs.readFileSync(path.join(EVENTS_DIR, name), 'utf8')) as APIGatewayProxyEvent;
}

function readEventBridgeEvent(name: string): { readonly source: string; readonly 'detail-type': string; readonly detail: Record<string, unknown> } {
  return JSON.parse(fs.readFileSync(path.join(EVENTS_DIR, name), 'utf8')) as ReturnType<typeof readEventBridgeEvent>;
}

function bearerKeyOf(event: APIGatewayProxyEvent): string {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  const match = /^Bearer (.+)$/.exec(header ?? '');
  if (!match?.[1]) throw new Error('the sample event carries no Authorization: Bearer header');
  return match[1];
}

interface BundleResult {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/**
 * Copies one bundle into an empty folder with no node_modules above it and invokes its `handler` there
 * with plain `node`: what Lambda (or SAM's container) does with the zip. Anything the bundle failed to
 * include would fail to import here.
 */
async function invokeBundle<Result = BundleResult>(samId: string, event: object, env: Record<string, string>, streaming = false): Promise<Result> {
  const { resource } = functionFor(samId);
  const [file, exportName] = String(resource.Properties.Handler).split('.');
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prompt-service-bundle-'));
  fs.cpSync(bundleDirOf(samId), runDir, { recursive: true });
  const eventFile = path.join(runDir, 'event.json');
  const resultFile = path.join(runDir, 'result.json');
  fs.writeFileSync(eventFile, JSON.stringify(event));
  const script = `
    import { readFileSync, writeFileSync } from 'node:fs';
    const mod = await import('./${file}.mjs');
    const handler = mod[${JSON.stringify(exportName)}];
    if (typeof handler !== 'function') throw new Error('no exported handler');
    const context = { awsRequestId: 'sam-local-test', functionName: ${JSON.stringify(samId)},
      getRemainingTimeInMillis: () => 10000, callbackWaitsForEmptyEventLoop: false };
    const event = JSON.parse(readFileSync(${JSON.stringify(eventFile)}, 'utf8'));
    const result = ${streaming} ? await streamed(handler, event, context) : await handler(event, context);
    writeFileSync(${JSON.stringify(resultFile)}, JSON.stringify(result));
  `;
  // A response-streaming function is invoked with a stream to write to, its status and headers first: here the
  // runtime's two helpers, as Lambda's Node.js runtime gives them (globalThis.awslambda), set before the bundle loads.
  const streamingRuntime = `
    import { Writable } from 'node:stream';
    let prelude;
    globalThis.awslambda = {
      streamifyResponse: (fn) => fn,
      HttpResponseStream: { from: (stream, metadata) => { prelude = metadata; return stream; } },
    };
    async function streamed(handler, event, context) {
      const chunks = [];
      const stream = new Writable({ write(chunk, _encoding, done) { chunks.push(Buffer.from(chunk)); done(); } });
      await handler(event, stream, context);
      return { statusCode: prelude?.statusCode, headers: prelude?.headers, body: Buffer.concat(chunks).toString('utf8') };
    }
  `;
  const variables = (resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  // The template's literal settings, as SAM passes them; references (the table, the pool) come from `env`.
  const literal = Object.entries(variables).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  const childEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    ...Object.fromEntries(literal),
    AWS_REGION: 'us-east-1',
    ...env,
  };
  try {
    const program = streaming ? `${streamingRuntime}\n${script}` : script;
    await run(process.execPath, ['--input-type=module', '-e', program], { cwd: runDir, env: childEnv, timeout: 20_000 });
    return JSON.parse(fs.readFileSync(resultFile, 'utf8')) as Result;
  } finally {
    fs.rmSync(runDir, { recursive: true, force: true });
  }
}

afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

describe('the synthesized template, as `sam local start-api -t cdk.out/<Stack>.template.json` reads it', () => {
  it.each(ALL_FUNCTION_IDS)('names the %s function for `sam local invoke` by its SamResourceId', (id) => {
    expect(functionFor(samFunctionId(id)).resource.Type).toBe('AWS::Lambda::Function');
  });

  it('gives every function a distinct SAM id', () => {
    expect(functionBySamId.size).toBe(functions.length);
    expect([...functionBySamId.keys()].sort()).toEqual([
      'EventDispatcherFunction',
      'FallbackFunction',
      'GetPromptFunction',
      'GuardAlarmFunction',
      'ListPromptsFunction',
      'ManageAccountsFunction',
      'ManageActivityFunction',
      'ManageKeysFunction',
      'ManageMembersFunction',
      'ManagePromptsFunction',
      'ManageWebhooksFunction',
      'McpFunction',
      'RolloutStepsFunction',
      'RunPromptsFunction',
      'WebhookDeliveryFunction',
    ]);
  });

  it.each(ALL_FUNCTION_IDS.map(samFunctionId))(
    '%s points SAM at a bundled asset folder beside the template, holding the file and export Handler names',
    (samId) => {
      const { resource } = functionFor(samId);
      expect(resource.Metadata).toMatchObject({ 'aws:asset:property': 'Code', 'aws:asset:is-bundled': true });
      const [file, exportName] = String(resource.Properties.Handler).split('.');
      expect(exportName).toBe('handler');
      const bundle = path.join(bundleDirOf(samId), `${file}.mjs`);
      expect(fs.existsSync(bundle)).toBe(true);
      expect(fs.existsSync(`${bundle}.map`)).toBe(true);
      const exportsHandler = /export\s*\{[^}]*\bas handler\b[^}]*\}|export\s*\{\s*handler\s*\}/;
      expect(fs.readFileSync(bundle, 'utf8')).toMatch(exportsHandler);
    },
  );

  it.each(Object.values(FUNCTION_IDS).map(samFunctionId))('%s declares TABLE_NAME and an absolute UPGRADE_URL', (id) => {
    const variables = (functionFor(id).resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.TABLE_NAME).toEqual({ Ref: expect.any(String) });
    expect(new URL(String(variables.UPGRADE_URL)).href).toBe(TEST_UPGRADE_URL);
  });

  it.each(ROLLOUT_AUTOMATION_FUNCTIONS.map((fn) => samFunctionId(fn.id)))(
    '%s declares TABLE_NAME as a reference SAM needs given (--env-vars), and no user pool or upgrade URL',
    (id) => {
      const variables = (functionFor(id).resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.TABLE_NAME).toEqual({ Ref: expect.any(String) });
      expect(Object.keys(variables).sort()).toEqual(['NODE_OPTIONS', 'POWERTOOLS_LOG_LEVEL', 'POWERTOOLS_SERVICE_NAME', 'TABLE_NAME']);
    },
  );

  it.each([
    ['rollout-steps.json', 'RolloutStepsFunction'],
    ['guard-alarm.json', 'GuardAlarmFunction'],
    ['guard-alarm-ok.json', 'GuardAlarmFunction'],
  ])('sends an event like sample-events/%s to %s by its EventBridge rule', (file, samId) => {
    expect(samIdBehindRule(readEventBridgeEvent(file))).toBe(samId);
  });

  it.each([
    ['event-stream-insert.json', 'EventDispatcherFunction'],
    ['event-stream-ignored.json', 'EventDispatcherFunction'],
    ['webhook-delivery.json', 'WebhookDeliveryFunction'],
  ])('sends the records of sample-events/%s to %s by its event source mapping', (file, samId) => {
    for (const record of readRecordsEvent(file).Records) expect(samIdBehindMapping(record)).toBe(samId);
  });

  it("filters the stream as DISPATCH_FILTER says: the sample's INSERT of an event passes, its MODIFY and REMOVE do not", () => {
    const mapping = Object.values(resources).find(
      (resource) => resource.Type === 'AWS::Lambda::EventSourceMapping' && (resource.Properties.EventSourceArn as GetAtt)['Fn::GetAtt'][1] === 'StreamArn',
    );
    if (!mapping) throw new Error("no event source mapping on the table's stream");
    const filters = (mapping.Properties.FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map((filter) => JSON.parse(filter.Pattern));
    expect(filters).toEqual([DISPATCH_FILTER]);
    const passes = (file: string) => readRecordsEvent(file).Records.map((record) => filters.some((pattern) => matchesPattern(pattern, record)));
    expect(passes('event-stream-insert.json')).toEqual([true]);
    expect(passes('event-stream-ignored.json')).toEqual([false, false]);
  });

  it.each([
    ['EventDispatcherFunction', ['DELIVERY_QUEUE_URL', 'EVENT_BUS_NAME', 'TABLE_NAME']],
    ['WebhookDeliveryFunction', ['DELIVERY_QUEUE_URL', 'TABLE_NAME', 'WEBHOOK_KEY_ID']],
  ])('%s declares %j as references SAM needs given (--env-vars)', (samId, names) => {
    const variables = (functionFor(samId).resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const references = Object.entries(variables)
      .filter(([, value]) => typeof value !== 'string')
      .map(([name]) => name);
    expect(references.sort()).toEqual(names);
  });

  it.each(MANAGEMENT_FUNCTIONS.map((fn) => samFunctionId(fn.id)))(
    '%s declares TABLE_NAME and USER_POOL_ID as references SAM needs given (--env-vars)',
    (id) => {
      const variables = (functionFor(id).resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables).toMatchObject({ TABLE_NAME: { Ref: expect.any(String) }, USER_POOL_ID: { Ref: expect.any(String) } });
    },
  );

  it.each([
    ['GET', '/api/me', 'ManageAccountsFunction'],
    ['GET', '/api/accounts/{accountId}/prompts', 'ManagePromptsFunction'],
    ['GET', '/api/accounts/{accountId}/keys', 'ManageKeysFunction'],
    ['GET', '/api/accounts/{accountId}/members', 'ManageMembersFunction'],
    ['GET', '/api/accounts/{accountId}/audit', 'ManageActivityFunction'],
    ['GET', '/api/accounts/{accountId}/webhooks', 'ManageWebhooksFunction'],
    ['GET', '/prompts', 'ListPromptsFunction'],
    ['GET', '/prompts/{promptId}', 'GetPromptFunction'],
    ['ANY', '/prompts', 'FallbackFunction'],
    ['ANY', '/prompts/{promptId}', 'FallbackFunction'],
    ['ANY', '/', 'FallbackFunction'],
    ['ANY', '/{proxy+}', 'FallbackFunction'],
  ])('lets SAM resolve %s %s to %s', (method, resource, samId) => {
    expect(samIdBehindMethod(method, resource)).toBe(samId);
  });
});

describe('the bundles, run with plain node from a folder with no node_modules', () => {
  let store: LocalStore;
  const env = () => ({ TABLE_NAME: store.tableName, DYNAMODB_ENDPOINT: store.endpoint });

  beforeAll(async () => {
    for (let dir = os.tmpdir(); ; dir = path.dirname(dir)) {
      // A node_modules above the run folder would let a bundle lean on packages it did not include.
      expect(fs.existsSync(path.join(dir, 'node_modules'))).toBe(false);
      if (path.dirname(dir) === dir) break;
    }
    store = await startLocalStore('sam-local-test');
  });
  afterAll(async () => store.close());

  async function seedFor(event: APIGatewayProxyEvent, promptId?: string, versions = ['1.0.0']): Promise<void> {
    const apiKey = bearerKeyOf(event);
    expect(isWellFormedApiKey(apiKey)).toBe(true);
    const admin = new FixtureStore(store.client, store.tableName);
    await admin.putAccount({ accountId: 'sam-local', name: 'SAM local', plan: 'free' });
    const keyHash = hashApiKey(apiKey);
    await admin.putApiKey({
      keyHash,
      keyId: keyIdFromHash(keyHash),
      accountId: 'sam-local',
      displayPrefix: apiKey.slice(0, 8),
    });
    if (promptId)
      await admin.importPrompt(
        'sam-local',
        prompt(
          promptId,
          versions.map((v) => version(v)),
        ),
      );
  }

  it('GetPromptFunction answers sample-events/get-prompt.json, a REST API proxy event for GET /prompts/{promptId}', async () => {
    const event = readEvent('get-prompt.json');
    expect(event).toMatchObject({ httpMethod: 'GET', resource: '/prompts/{promptId}' });
    expect(samIdBehindMethod(event.httpMethod, event.resource)).toBe('GetPromptFunction');
    const promptId = /^\/prompts\/([^/]+)$/.exec(event.path)?.[1];
    expect(promptId).toBeDefined();
    const pinned = event.queryStringParameters?.version;
    await seedFor(event, promptId, pinned ? ['1.0.0', pinned] : ['1.0.0']);
    const result = await invokeBundle('GetPromptFunction', event, env());
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body ?? '')).toMatchObject({ promptId, version: pinned ?? '1.0.0' });
    expect(result.headers).toMatchObject({ 'X-RateLimit-Limit': '5000', 'Access-Control-Allow-Origin': '*' });
  }, 30_000);

  it('ListPromptsFunction answers sample-events/list-prompts.json, a REST API proxy event for GET /prompts', async () => {
    const event = readEvent('list-prompts.json');
    expect(event).toMatchObject({ httpMethod: 'GET', resource: '/prompts', path: '/prompts' });
    expect(samIdBehindMethod(event.httpMethod, event.resource)).toBe('ListPromptsFunction');
    await seedFor(event, 'listed');
    const result = await invokeBundle('ListPromptsFunction', event, env());
    expect(result.statusCode).toBe(200);
    expect(Array.isArray(JSON.parse(result.body ?? ''))).toBe(true);
  }, 30_000);

  it('GetPromptFunction answers sample-events/get-prompt-version.json with the pinned version', async () => {
    const event = readEvent('get-prompt-version.json');
    const pinned = event.queryStringParameters?.version;
    expect(pinned).toBeDefined();
    expect(samIdBehindMethod(event.httpMethod, event.resource)).toBe('GetPromptFunction');
    await seedFor(event, event.pathParameters?.promptId, ['1.0.0', '1.1.0']);
    const result = await invokeBundle('GetPromptFunction', event, env());
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body ?? '')).toMatchObject({ version: pinned });
  }, 30_000);

  it.each([
    ['preflight.json', 204],
    ['method-not-allowed.json', 405],
  ])(
    'FallbackFunction answers sample-events/%s with %i',
    async (file, status) => {
      const event = readEvent(file);
      expect(samIdBehindMethod('ANY', event.resource)).toBe('FallbackFunction');
      const result = await invokeBundle('FallbackFunction', event, env());
      expect(result.statusCode).toBe(status);
    },
    30_000,
  );

  it('McpFunction answers sample-events/mcp.json, a prompts/get over POST /mcp, with the prompt compiled and one unit counted', async () => {
    const event = readEvent('mcp.json');
    expect(event).toMatchObject({ httpMethod: 'POST', resource: '/mcp' });
    expect(samIdBehindMethod('ANY', event.resource)).toBe('McpFunction');
    const request = JSON.parse(event.body ?? '') as { params: { name: string; arguments: Record<string, string> } };
    const template = 'Write to ${name} in ${language} about ${product} on the ${plan} plan.';
    await seedFor(event);
    await new FixtureStore(store.client, store.tableName).importPrompt(
      'sam-local',
      // Above what the other events' tests may have stored under this id: the latest, which prompts/get reads.
      prompt(request.params.name, [version('9.0.0', { userMessage: template })]),
    );
    const result = await invokeBundle('McpFunction', event, env());
    expect(result.statusCode).toBe(200);
    const { arguments: given } = request.params;
    const answer = JSON.parse(result.body ?? '') as { result: { messages: { content: { text: string } }[] } };
    expect(answer.result.messages.map((message) => message.content.text)).toContain(
      `Write to ${given.name} in ${given.language} about ${given.product} on the ${given.plan} plan.`,
    );
    expect(result.headers).toMatchObject({ 'X-RateLimit-Limit': '5000' });
  }, 30_000);

  it('FallbackFunction answers a preflight on any path with 204 and never needs the store', async () => {
    const preflight: APIGatewayProxyEvent = {
      ...readEvent('list-prompts.json'),
      httpMethod: 'OPTIONS',
      path: '/anything',
      resource: '/{proxy+}',
      pathParameters: { proxy: 'anything' },
      headers: {},
      multiValueHeaders: {},
    };
    expect(samIdBehindMethod('ANY', preflight.resource)).toBe('FallbackFunction');
    const result = await invokeBundle('FallbackFunction', preflight, {
      TABLE_NAME: 'unused',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    });
    expect(result.statusCode).toBe(204);
    expect(result.headers).toMatchObject({ 'Access-Control-Allow-Methods': 'GET, OPTIONS' });
  }, 30_000);
});

describe('the management bundles, run with plain node on their sample-events/ files, as `sam local invoke` would', () => {
  let store: LocalStore;
  const claimsOf = (event: APIGatewayProxyEvent) => (event.requestContext.authorizer as { claims: { sub: string; email: string } }).claims;

  beforeAll(async () => {
    store = await startLocalStore('sam-local-management-test');
    // The person the events' claims name, an owner of the account their paths name, with a prompt and a key.
    const { sub, email } = claimsOf(readEvent('manage-accounts.json'));
    const admin = new FixtureStore(store.client, store.tableName);
    await admin.putAccount({ accountId: 'acct_demo', name: 'Demo', plan: 'free' });
    await admin.addMember('acct_demo', { userId: sub, email, role: 'owner' });
    await admin.importPrompt('acct_demo', prompt('welcome-email', [version('1.0.0')]));
    const keyHash = hashApiKey('prs_sam_local_management_test_key_0001');
    await admin.putApiKey({ keyHash, keyId: keyIdFromHash(keyHash), accountId: 'acct_demo', displayPrefix: 'prs_sam_' });
  });
  afterAll(async () => store.close());

  it.each([
    ['manage-accounts.json', 'ManageAccountsFunction', 'acct_demo'],
    ['manage-prompts.json', 'ManagePromptsFunction', 'welcome-email'],
    ['manage-keys.json', 'ManageKeysFunction', 'prs_sam_'],
    ['manage-members.json', 'ManageMembersFunction', 'owner@example.com'],
    ['manage-activity.json', 'ManageActivityFunction', '"entries"'],
    ['manage-webhooks.json', 'ManageWebhooksFunction', '"webhooks"'],
  ])(
    '%s, the claims the Cognito authorizer would pass, is answered by %s with 200',
    async (file, samId, expected) => {
      const event = readEvent(file);
      expect(event.requestContext.authorizer).toMatchObject({ claims: { token_use: 'id' } });
      expect(samIdBehindMethod(event.httpMethod, event.resource)).toBe(samId);
      const result = await invokeBundle(samId, event, {
        TABLE_NAME: store.tableName,
        DYNAMODB_ENDPOINT: store.endpoint,
        USER_POOL_ID: 'us-east-1_EXAMPLE',
      });
      expect(result.statusCode).toBe(200);
      expect(result.body).toContain(expected);
    },
    30_000,
  );

  it('run-prompts.json is answered by RunPromptsFunction, a response-streaming function, with 200 and the catalog: its bundle holds every package it imports at load', async () => {
    const event = readEvent('run-prompts.json');
    expect(samIdBehindMethod(event.httpMethod, event.resource)).toBe('RunPromptsFunction');
    const result = await invokeBundle(
      'RunPromptsFunction',
      event,
      { TABLE_NAME: store.tableName, DYNAMODB_ENDPOINT: store.endpoint, USER_POOL_ID: 'us-east-1_EXAMPLE' },
      true,
    );
    expect(result.statusCode).toBe(200);
    expect(result.body).toContain('"models"');
  }, 30_000);

  it("answers an event without the authorizer's claims with 401: what `sam local start-api` would send, as it runs no Cognito authorizer", async () => {
    const { authorizer: _claims, ...requestContext } = readEvent('manage-accounts.json').requestContext;
    const event = { ...readEvent('manage-accounts.json'), requestContext } as APIGatewayProxyEvent;
    const result = await invokeBundle('ManageAccountsFunction', event, {
      TABLE_NAME: store.tableName,
      DYNAMODB_ENDPOINT: store.endpoint,
      USER_POOL_ID: 'us-east-1_EXAMPLE',
    });
    expect(result.statusCode).toBe(401);
  }, 30_000);
});

describe('the rollout automation bundles, run with plain node on their sample-events/ files, as `sam local invoke` would', () => {
  let store: LocalStore;
  const env = () => ({ TABLE_NAME: store.tableName, DYNAMODB_ENDPOINT: store.endpoint });

  beforeAll(async () => {
    store = await startLocalStore('sam-local-rollouts-test');
  });
  afterAll(async () => store.close());

  // What each does to rollouts is tested from source on the same files (test/integration/rollout-automation.test.ts):
  // here, that the bundles load, read their configuration, reach the store and answer.
  it('RolloutStepsFunction runs on sample-events/rollout-steps.json, an EventBridge Scheduled Event, and finds no due step in an empty table', async () => {
    const event = readEventBridgeEvent('rollout-steps.json');
    expect(samIdBehindRule(event)).toBe('RolloutStepsFunction');
    expect(await invokeBundle('RolloutStepsFunction', event, env())).toEqual({ applied: 0, skipped: 0, failed: 0 });
  }, 30_000);

  it('GuardAlarmFunction runs on sample-events/guard-alarm.json, an alarm going to ALARM, and aborts nothing where nothing is guarded', async () => {
    const event = readEventBridgeEvent('guard-alarm.json');
    expect(event.detail).toMatchObject({ state: { value: 'ALARM' } });
    expect(await invokeBundle('GuardAlarmFunction', event, env())).toEqual({
      alarmName: event.detail.alarmName,
      aborted: 0,
      skipped: 0,
      failed: 0,
    });
  }, 30_000);

  it('GuardAlarmFunction ignores sample-events/guard-alarm-ok.json, the same alarm going back to OK, without reading the store', async () => {
    const event = readEventBridgeEvent('guard-alarm-ok.json');
    expect(event.detail).toMatchObject({ state: { value: 'OK' } });
    const result = await invokeBundle<{ ignored?: string }>('GuardAlarmFunction', event, { TABLE_NAME: 'unused', DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' });
    expect(result.ignored).toContain('OK');
  }, 30_000);
});

describe('the events bundles, run with plain node on their sample-events/ files, as `sam local invoke` would', () => {
  let store: LocalStore;
  let receiver: Receiver;
  const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prompt-service-webhook-key-'));
  const keyFile = path.join(keyDir, 'webhook-sealing.key');
  const key = LocalSecretSealer.generateKey();

  beforeAll(async () => {
    store = await startLocalStore('sam-local-events-test');
    receiver = await startReceiver();
    fs.writeFileSync(keyFile, `${key.toString('base64')}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await receiver.close();
    await store.close();
    fs.rmSync(keyDir, { recursive: true, force: true });
  });

  // What each does is tested from source on the same files (test/events/event-functions.test.ts): here, that the
  // bundles load, read their configuration, reach the store and answer.
  it('EventDispatcherFunction ignores sample-events/event-stream-ignored.json without reaching the bus or the queue', async () => {
    const result = await invokeBundle('EventDispatcherFunction', readRecordsEvent('event-stream-ignored.json'), {
      TABLE_NAME: store.tableName,
      DYNAMODB_ENDPOINT: store.endpoint,
      EVENT_BUS_NAME: 'unused',
      DELIVERY_QUEUE_URL: 'http://127.0.0.1:9/000000000000/unused',
    });
    expect(result).toEqual({ published: 0, queued: 0, ignored: 2 });
  }, 30_000);

  it('WebhookDeliveryFunction delivers sample-events/webhook-delivery.json to a loopback receiver, the secret sealed by a local key file', async () => {
    const event = readRecordsEvent('webhook-delivery.json') as unknown as { Records: { body: string }[] };
    const job = JSON.parse(event.Records[0]?.body ?? '{}') as { accountId: string; webhookId: string; event: { id: string } };
    const now = new Date().toISOString();
    await store.client.send(
      new PutCommand({
        TableName: store.tableName,
        Item: {
          ...keys.webhook(job.accountId, job.webhookId),
          type: 'webhook',
          accountId: job.accountId,
          webhookId: job.webhookId,
          url: `http://127.0.0.1:${receiver.port}/hooks`,
          events: ['*'],
          enabled: true,
          description: null,
          createdAt: now,
          createdBy: 'owner@example.com',
          updatedAt: now,
          secrets: [{ sealed: await new LocalSecretSealer(key).seal(generateSecret()), createdAt: now }],
          revision: 1,
        },
      }),
    );
    const result = await invokeBundle('WebhookDeliveryFunction', event, {
      TABLE_NAME: store.tableName,
      DYNAMODB_ENDPOINT: store.endpoint,
      DELIVERY_QUEUE_URL: 'http://127.0.0.1:9/000000000000/unused',
      WEBHOOK_LOCAL_KEY_FILE: keyFile,
      WEBHOOK_DESTINATIONS: 'local',
    });
    expect(result).toEqual({ batchItemFailures: [] });
    expect(receiver.received.map((request) => request.headers['webhook-id'])).toEqual([job.event.id]);
  }, 30_000);
});

describe('docs/sam-local.md', () => {
  const doc = fs.readFileSync(path.join(__dirname, '../../docs/sam-local.md'), 'utf8');
  /** The rows of its table: `| \`Function\` | [\`sample-events/file.json\`](...) | ... |`. */
  const rows = [...doc.matchAll(/^\| `(\w+Function)` \| \[`sample-events\/([\w.-]+\.json)`\]/gm)].map((match) => ({
    samId: match[1] as string,
    file: match[2] as string,
  }));

  it('names every function of the stack and every file of sample-events/, once each', () => {
    expect([...new Set(rows.map((row) => row.samId))].sort()).toEqual(ALL_FUNCTION_IDS.map(samFunctionId).sort());
    expect(rows.map((row) => row.file).sort()).toEqual(
      fs
        .readdirSync(EVENTS_DIR)
        .filter((file) => file.endsWith('.json'))
        .sort(),
    );
  });

  it('pairs each event with the function SAM sends it to', () => {
    for (const { samId, file } of rows) {
      const event = readEvent(file);
      const records = (event as Partial<RecordsEvent>).Records;
      const resolved = records
        ? samIdBehindMapping(records[0] ?? {})
        : 'detail-type' in event
          ? samIdBehindRule(event)
          : (samIdBehindMethod(event.httpMethod, event.resource) ?? samIdBehindMethod('ANY', event.resource));
      expect([file, resolved]).toEqual([file, samId]);
    }
  });
});
