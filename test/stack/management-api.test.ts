import { App, type CfnElement, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { MANAGEMENT_FUNCTIONS } from '../../lambda/management-api/routes';
import { DEFAULT_CATALOG } from '../../lambda/models/catalog';
import { ManagementApi } from '../../lib/management-api';
import { PromptTable } from '../../lib/prompt-table';

/** The management REST API (lib/management-api.ts) in a stack of its own, with a user pool made here. */
function synthesize() {
  // CDK's built-in CloudFormation validation checks this API as part of the whole stack (cfn-lint.test.ts).
  const app = new App({ builtinCloudFormationValidation: false, context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'ManagementTest', { env: { account: '123456789012', region: 'eu-west-1' } });
  const userPool = new cognito.UserPool(stack, 'Users');
  const table = new PromptTable(stack, 'Store', { removalPolicy: RemovalPolicy.DESTROY });
  const api = new ManagementApi(stack, 'Management', {
    stage: 'test',
    userPool,
    table,
    serviceName: 'prompt-service-test',
    logLevel: 'INFO',
    logRetention: RetentionDays.ONE_MONTH,
    logRemovalPolicy: RemovalPolicy.DESTROY,
    models: DEFAULT_CATALOG,
  });
  return { app, stack, api, userPool, template: Template.fromStack(stack) };
}

const { app, stack, api, template } = synthesize();
const ROUTES = MANAGEMENT_FUNCTIONS.flatMap((fn) => fn.routes.map((route) => `${route.method} ${route.path}`)).sort();

test('every method of MANAGEMENT_FUNCTIONS, and no other, is on the REST API', () => {
  expect(api.restApi.methods.map((method) => `${method.httpMethod} ${method.resource.path}`).sort()).toEqual(ROUTES);
});

test('every management method has the Cognito user-pool authorizer', () => {
  const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
  expect(methods).toHaveLength(ROUTES.length);
  const authorizerId = stack.resolve(api.authorizer.authorizerId);
  for (const method of methods) {
    expect(method.Properties).toMatchObject({ AuthorizationType: 'COGNITO_USER_POOLS', AuthorizerId: authorizerId });
  }
});

test("the authorizer trusts this stack's user pool and reads the Authorization header", () => {
  template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
    Type: 'COGNITO_USER_POOLS',
    IdentitySource: 'method.request.header.Authorization',
    ProviderARNs: [{ 'Fn::GetAtt': [Match.stringLikeRegexp('^Users'), 'Arn'] }],
  });
});

test('one function per group, each with the table and the pool id; only the members function has rights on the pool', () => {
  for (const spec of MANAGEMENT_FUNCTIONS) {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: spec.description,
      Environment: { Variables: Match.objectLike({ TABLE_NAME: Match.anyValue(), USER_POOL_ID: { Ref: Match.stringLikeRegexp('^Users') } }) },
    });
  }
  const policies = Object.values(template.findResources('AWS::IAM::Policy'));
  const cognito = policies.filter((policy) => JSON.stringify(policy.Properties.PolicyDocument).includes('cognito-idp'));
  expect(cognito.map((policy) => JSON.stringify(policy.Properties.Roles))).toEqual([
    JSON.stringify([{ Ref: stack.getLogicalId(api.functions.ManageMembers?.role.node.defaultChild as CfnElement) }]),
  ]);
  const statements = policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
  for (const statement of statements.filter((candidate) => JSON.stringify(candidate.Action).includes('cognito-idp'))) {
    expect(statement.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^Users/), 'Arn'] });
  }
  expect(JSON.stringify(statements)).not.toMatch(/"Resource":"\*"/);
});

test("the gateway's own answers are the service's JSON errors, without CORS: 401 from the authorizer", () => {
  template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
    ResponseType: 'UNAUTHORIZED',
    StatusCode: '401',
    ResponseTemplates: { 'application/json': JSON.stringify({ error: 'Sign in again: no valid identity on the request', code: 'UNAUTHORIZED' }) },
  });
  const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse'));
  for (const response of responses) {
    expect(Object.keys(response.Properties.ResponseParameters ?? {}).join(' ')).not.toMatch(/Access-Control/);
  }
});

const managementViolations = (scope: App) =>
  new AwsSolutionsChecks().validateScope(scope).violations.filter((violation) => JSON.stringify(violation).includes('/Management/'));

test('cdk-nag finds nothing unacknowledged in the management API', () => {
  expect(managementViolations(app)).toEqual([]);
});

test('and finds exactly the acknowledged decisions when the acknowledgments are ignored (the check is live)', () => {
  const ignore = jest.spyOn(Validations.prototype, 'acknowledge').mockImplementation(() => undefined);
  const { app: bare } = synthesize();
  ignore.mockRestore();
  expect(
    managementViolations(bare)
      .map((violation) => violation.ruleName)
      .sort(),
  ).toEqual(['AwsSolutions-APIG2', 'AwsSolutions-APIG3', 'AwsSolutions-APIG6', 'AwsSolutions-L1']);
});
