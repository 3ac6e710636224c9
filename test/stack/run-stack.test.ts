import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Aws, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { routesOf } from '../../lambda/management-api/routes';
import { bedrockResourceArns, type CatalogModel, DEFAULT_CATALOG, parseCatalog } from '../../lambda/models/catalog';
import { ManagementApi } from '../../lib/management-api';
import { PromptTable } from '../../lib/prompt-table';
import { SettingsError, settingsFromContext } from '../../lib/stack-config';

/**
 * The run function as deployed (docs/runs.md "Streaming, deployed"): its own function with the catalog, the
 * only one that may call the catalog's models (and read their endpoints' keys), on exactly their ARNs; its methods'
 * integrations stream, with the time a model takes.
 */

const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:openai-AbCdEf';
const CUSTOM = parseCatalog(
  JSON.stringify([
    ...DEFAULT_CATALOG,
    { modelId: 'gpt-4o-mini', provider: 'openai', inputUsdPerMTok: 0.15, outputUsdPerMTok: 0.6, baseUrl: 'https://api.openai.com/v1', apiKeySecretArn: SECRET },
  ]),
);

function synthesize(models: readonly CatalogModel[]) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'RunsTest', { env: { account: '123456789012', region: 'eu-west-1' } });
  const api = new ManagementApi(stack, 'Management', {
    stage: 'test',
    userPool: new cognito.UserPool(stack, 'Users'),
    table: new PromptTable(stack, 'Store', { removalPolicy: RemovalPolicy.DESTROY }),
    serviceName: 'prompt-service-test',
    logLevel: 'INFO',
    logRetention: RetentionDays.ONE_MONTH,
    logRemovalPolicy: RemovalPolicy.DESTROY,
    models,
  });
  return { stack, api, template: Template.fromStack(stack) };
}

type Statement = { Sid?: string; Action: string | string[]; Resource: unknown };

/** The statements of a management function's role (its construct path names the role's policy). */
function statementsOf(_stack: Stack, template: Template, functionId: string): Statement[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`Management${functionId}Role`))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

const synthesized = synthesize(CUSTOM);

test('the run function holds the catalog, and the time a model takes (120 s) and a record after it', () => {
  const fn = synthesized.api.functions.RunPrompts;
  if (!fn) throw new Error('no RunPrompts');
  const resource = synthesized.stack.resolve((fn.function.node.defaultChild as { timeout?: number }).timeout);
  expect(resource).toBe(150);
  const environment = synthesized.stack.resolve((fn.function.node.defaultChild as { environment?: { variables?: Record<string, string> } }).environment);
  expect(parseCatalog(environment.variables.MODELS)).toEqual(CUSTOM);
});

test('it alone may call models, on exactly the catalog’s Bedrock ARNs, and read exactly its endpoint keys', () => {
  const { stack, template } = synthesized;
  const models = statementsOf(stack, template, 'RunPrompts').find((statement) => statement.Sid === 'Models');
  expect(models?.Action).toEqual(['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream']);
  expect(models?.Resource).toEqual(stack.resolve(bedrockResourceArns(CUSTOM, { partition: Aws.PARTITION, region: Aws.REGION, account: Aws.ACCOUNT_ID })));
  expect(JSON.stringify(models?.Resource)).not.toContain('*');
  const keys = statementsOf(stack, template, 'RunPrompts').find((statement) => statement.Sid === 'EndpointKeys');
  expect(keys).toMatchObject({ Action: 'secretsmanager:GetSecretValue', Resource: SECRET });
  const everyPolicy = JSON.stringify(template.findResources('AWS::IAM::Policy'));
  expect(everyPolicy.match(/bedrock:InvokeModel"/g)).toHaveLength(1);
  expect(everyPolicy.match(/secretsmanager:GetSecretValue/g)).toHaveLength(1);
});

test('a catalog that names no endpoint key gives no Secrets Manager right', () => {
  const { stack, template } = synthesize(DEFAULT_CATALOG);
  expect(statementsOf(stack, template, 'RunPrompts').map((statement) => statement.Sid)).not.toContain('EndpointKeys');
});

test('every method of the run function streams through its integration, with the time a model takes; no other method does', () => {
  const { template, api, stack } = synthesized;
  const runFunction = stack.resolve(api.functions.RunPrompts?.function.functionArn);
  const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
  const streaming = methods.filter((method) => method.Properties.Integration?.ResponseTransferMode === 'STREAM');
  expect(streaming).toHaveLength(routesOf('RunPrompts').length);
  for (const method of streaming) {
    expect(JSON.stringify(method.Properties.Integration.Uri)).toContain(JSON.stringify(runFunction).slice(1, -1));
    expect(method.Properties.Integration.TimeoutInMillis).toBe(150_000);
    expect(method.Properties.AuthorizationType).toBe('COGNITO_USER_POOLS');
  }
});

describe('-c models', () => {
  const settings = (models: unknown) => settingsFromContext((key) => ({ upgradeUrl: 'https://prompts.test/up', models })[key as 'models']);

  test('takes a file holding the catalog', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'models-')), 'models.json');
    writeFileSync(file, JSON.stringify([{ modelId: 'amazon.nova-micro-v1:0', provider: 'bedrock', inputUsdPerMTok: 0.035, outputUsdPerMTok: 0.14 }]));
    expect(settings(file).models.map((model) => model.modelId)).toEqual(['amazon.nova-micro-v1:0']);
  });

  test('takes the list as cdk.json holds it', () => {
    expect(settings([{ modelId: 'amazon.nova-micro-v1:0', provider: 'bedrock', inputUsdPerMTok: 1, outputUsdPerMTok: 1 }]).models).toHaveLength(1);
  });

  test.each([
    ['a local model, which only npm start has', '[{"modelId": "m", "provider": "local", "inputUsdPerMTok": 0, "outputUsdPerMTok": 0}]', 'local model'],
    ['a file that is not there', 'no-such-models.json', 'no file no-such-models.json'],
    ['a bad entry, named', '[{"modelId": "m", "provider": "bedrock"}]', 'Context "models": models[0].inputUsdPerMTok'],
    [
      'a catalog larger than the function’s environment holds',
      JSON.stringify(
        Array.from({ length: 30 }, (_, index) => ({
          modelId: `model-${index}`,
          provider: 'bedrock',
          name: 'x'.repeat(80),
          inputUsdPerMTok: 1,
          outputUsdPerMTok: 1,
        })),
      ),
      'must fit 3000 characters',
    ],
  ])('refuses %s, with one clear line', (_what, value, message) => {
    expect(() => settings(value)).toThrow(SettingsError);
    expect(() => settings(value)).toThrow(message);
  });
});
