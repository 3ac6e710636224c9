import { Aws, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  CognitoUserPoolsAuthorizer,
  EndpointType,
  type IResource,
  LambdaIntegration,
  LogGroupLogDestination,
  ResponseTransferMode,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IUserPool } from 'aws-cdk-lib/aws-cognito';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Validations } from 'aws-cdk-lib';
import { apiKeySecretArns, bedrockResourceArns, type CatalogModel } from '../lambda/models/catalog';
import { RUN_FUNCTION_TIMEOUT_MS } from '../lambda/features/runs/run-prompt';
import { Construct } from 'constructs';
import { MANAGEMENT_FUNCTIONS, MANAGEMENT_GATEWAY_ANSWERS, managementAnswerBody, managementAnswerHeaders } from '../lambda/management-api/routes';
import { ApiFunction } from './api-function';
import { accessOf } from './function-access';
import { accessLogFormat } from './prompt-api';
import { acknowledgeLogGroupRules, acknowledgeRestApiRules } from './policy-checks';
import type { PromptTable } from './prompt-table';

export interface ManagementApiProps {
  readonly stage: string;
  /** The pool whose ID tokens the authorizer accepts, and where the functions add people. */
  readonly userPool: IUserPool;
  readonly table: PromptTable;
  readonly serviceName: string;
  readonly logLevel: string;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** Requests per second for all callers together; people, not programs, call this API. */
  readonly throttleRateLimit?: number;
  readonly throttleBurstLimit?: number;
  /** The catalog of models runs may call: the run function's MODELS, and exactly what its IAM allows. */
  readonly models: readonly CatalogModel[];
}

/**
 * A streaming function (the run function) may take as long as a model, 120 s, and then record the run: its
 * Lambda timeout, and its integration's (a streaming REST integration may take up to 15 minutes).
 */
export const STREAMING_TIMEOUT = Duration.millis(RUN_FUNCTION_TIMEOUT_MS);

/**
 * The dashboard's back end: a second REST API (Lambda proxy, payload 1.0) whose every method has the
 * Cognito user-pool authorizer, with one function per group of MANAGEMENT_FUNCTIONS. The functions read
 * the caller from the authorizer's claims and never see a token. CloudFront forwards `/api/*` to it on
 * the dashboard's own origin, so it sends no CORS headers, and its own answers (401 from the authorizer,
 * throttling, a body too large) are the service's JSON errors.
 */
export class ManagementApi extends Construct {
  readonly restApi: RestApi;
  readonly authorizer: CognitoUserPoolsAuthorizer;
  readonly functions: Readonly<Record<string, ApiFunction>>;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: ManagementApiProps) {
    super(scope, id);
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, removalPolicy: props.logRemovalPolicy });
    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `prompt-service-management-${props.stage}`,
      description: `Prompt service management API (${props.stage})`,
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      cloudWatchRole: false,
      deployOptions: {
        stageName: props.stage,
        throttlingRateLimit: props.throttleRateLimit ?? 20,
        throttlingBurstLimit: props.throttleBurstLimit ?? 40,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(accessLogFormat(`${props.serviceName}-management`))),
        // Execution logs could carry headers (the ID token): never.
        dataTraceEnabled: false,
      },
    });
    this.authorizer = new CognitoUserPoolsAuthorizer(this, 'Authorizer', {
      cognitoUserPools: [props.userPool],
      authorizerName: `prompt-service-${props.stage}-users`,
    });

    const functions: Record<string, ApiFunction> = {};
    const resourceAt = (path: string): IResource => {
      let resource: IResource = this.restApi.root;
      for (const part of path.split('/').filter((segment) => segment !== '')) {
        resource = resource.getResource(part) ?? resource.addResource(part);
      }
      return resource;
    };
    for (const spec of MANAGEMENT_FUNCTIONS) {
      const fn = new ApiFunction(this, spec.id, {
        entry: spec.entry,
        description: spec.description,
        environment: {
          TABLE_NAME: props.table.table.tableName,
          USER_POOL_ID: props.userPool.userPoolId,
          POWERTOOLS_SERVICE_NAME: props.serviceName,
          POWERTOOLS_LOG_LEVEL: props.logLevel,
          ...(spec.streaming ? { MODELS: JSON.stringify(props.models) } : {}),
        },
        logRetention: props.logRetention,
        logRemovalPolicy: props.logRemovalPolicy,
        ...(spec.streaming ? { timeout: STREAMING_TIMEOUT, bundledAfterAll: ['@aws-sdk/token-providers'] } : {}),
      });
      // Each function holds what its own routes call (lib/function-access.ts): only the members function the pool.
      const access = accessOf(spec.id);
      props.table.grant(fn.role, access.table);
      if (access.userPool.length > 0) {
        fn.role.addToPrincipalPolicy(new PolicyStatement({ sid: 'UserPool', actions: [...access.userPool], resources: [props.userPool.userPoolArn] }));
      }
      if (access.models) {
        const where = { partition: Aws.PARTITION, region: Aws.REGION, account: Aws.ACCOUNT_ID };
        const models = bedrockResourceArns(props.models, where);
        if (models.length > 0) fn.role.addToPrincipalPolicy(new PolicyStatement({ sid: 'Models', actions: [...access.models], resources: models }));
      }
      const secrets = apiKeySecretArns(props.models);
      if (access.endpointKeys && secrets.length > 0) {
        fn.role.addToPrincipalPolicy(new PolicyStatement({ sid: 'EndpointKeys', actions: [...access.endpointKeys], resources: secrets }));
      }
      Validations.of(fn.function).acknowledge({
        id: 'AwsSolutions-L1',
        reason: 'Built and tested for nodejs22.x like the read API; a newer runtime is a deliberate upgrade with its own test run.',
      });
      // A streaming function's answers pass through as it writes them (API Gateway's REST response streaming): every
      // method of it, as its handler streams whatever it answers (lambda/management-api/response-streaming.ts).
      const integration = new LambdaIntegration(fn.function, {
        proxy: true,
        allowTestInvoke: false,
        ...(spec.streaming ? { responseTransferMode: ResponseTransferMode.STREAM, timeout: STREAMING_TIMEOUT } : {}),
      });
      for (const route of spec.routes) {
        resourceAt(route.path).addMethod(route.method, integration, {
          authorizer: this.authorizer,
          authorizationType: AuthorizationType.COGNITO,
        });
      }
      functions[spec.id] = fn;
    }
    this.functions = functions;

    for (const answer of MANAGEMENT_GATEWAY_ANSWERS) {
      this.restApi.addGatewayResponse(answer.type, {
        type: ResponseType.of(answer.type),
        ...(answer.statusCode === undefined ? {} : { statusCode: String(answer.statusCode) }),
        responseHeaders: Object.fromEntries(Object.entries(managementAnswerHeaders(answer)).map(([name, value]) => [name, `'${value}'`])),
        templates: { 'application/json': managementAnswerBody(answer) },
      });
    }

    acknowledgeLogGroupRules(this.accessLogs, props.logRetention);
    acknowledgeRestApiRules(this.restApi, "a person's ID token (the Authorization header) of a failed request");

    const api = Validations.of(this.restApi);
    api.acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'The functions validate every body and parameter with the schemas openapi-management.yaml is generated from, and answer ' +
        "400 naming the field, after the caller's membership and role; a gateway validator would answer first, in its own words.",
    });
    api.acknowledge({
      id: 'AwsSolutions-APIG3',
      reason: "Signed-in people of the accounts are the only callers (Cognito authorizer on every method) and the stage's throttle caps them all.",
    });
    api.acknowledge({
      id: 'AwsSolutions-APIG6',
      reason: 'The access log has a JSON line per request with the gateway error; execution logs could hold the ID token.',
    });
  }
}
