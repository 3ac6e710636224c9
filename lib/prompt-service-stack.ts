import { Annotations, Aws, CfnOutput, Stack, type StackProps, Tags, Validations } from 'aws-cdk-lib';
import type { RestApiBase } from 'aws-cdk-lib/aws-apigateway';
import type { UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import type { Construct } from 'constructs';
import { serviceNameFor } from '../lambda/metric-names';
import { ApiFunction, samFunctionId } from './api-function';
import { ApiGatewayAccount } from './api-gateway-account';
import { DashboardFiles } from './dashboard-files';
import { DashboardHosting } from './dashboard-hosting';
import { EventDelivery } from './event-delivery';
import { accessOf, FUNCTION_ACCESS, tableOperationsOf } from './function-access';
import { ManagementApi } from './management-api';
import { acknowledgeGuardRule } from './policy-checks';
import { PromptApi } from './prompt-api';
import { PromptTable } from './prompt-table';
import { RolloutAutomation } from './rollout-automation';
import { ServiceAlarms } from './service-alarms';
import { ServiceDashboard } from './service-dashboard';
import { isPlaceholderUrl, type ServiceSettings } from './stack-config';
import { DashboardUserPool } from './user-pool';

export interface PromptServiceStackProps extends StackProps {
  readonly settings: ServiceSettings;
}

/** Construct ids of the functions; `sam local invoke <id>Function` names them (see ApiFunction). */
export const FUNCTION_IDS = {
  getPrompt: 'GetPrompt',
  listPrompts: 'ListPrompts',
  fallback: 'Fallback',
  mcp: 'Mcp',
} as const;

/**
 * The whole service: the table; the read API (four functions behind a REST API: GET, the fallback and MCP); the user pool and the
 * management API (its functions, lambda/management-api/routes.ts) behind the dashboard's CloudFront distribution;
 * the automation of rollouts (a scheduled function for steps, one on CloudWatch alarms for guards); events and
 * webhooks (the table's stream to a dispatcher, an EventBridge bus, a delivery queue and its function, a KMS key);
 * alarms and a dashboard for every API and function; and the outputs.
 */
export class PromptServiceStack extends Stack {
  readonly table: PromptTable;
  readonly api: PromptApi;
  readonly functions: Readonly<Record<keyof typeof FUNCTION_IDS, ApiFunction>>;
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;
  readonly apiGatewayAccount: ApiGatewayAccount | undefined;
  readonly userPool: DashboardUserPool;
  readonly managementApi: ManagementApi;
  readonly rollouts: RolloutAutomation;
  readonly events: EventDelivery;
  #dashboard: { hosting: DashboardHosting; client: UserPoolClient } | undefined;
  readonly #settings: ServiceSettings;

  constructor(scope: Construct, id: string, props: PromptServiceStackProps) {
    super(scope, id, {
      description: `Prompt retrieval service: REST API, Lambda and DynamoDB (stage ${props.settings.stage})`,
      ...props,
    });
    const { settings } = props;
    this.#settings = settings;
    Tags.of(this).add('service', 'prompt-retrieval');
    Tags.of(this).add('stage', settings.stage);
    if (isPlaceholderUrl(settings.upgradeUrl)) {
      Annotations.of(this).addWarningV2(
        'prompt-service:placeholder-upgrade-url',
        `upgradeUrl is the placeholder ${settings.upgradeUrl}: 429 responses will send users there. Deploy with -c upgradeUrl=https://your.site/pricing`,
      );
    }

    this.table = new PromptTable(this, 'Store', { removalPolicy: settings.removalPolicy });
    const serviceName = serviceNameFor(settings.stage);

    const apiFunction = (constructId: string, entry: string, description: string): ApiFunction => {
      const fn = new ApiFunction(this, constructId, {
        entry,
        description,
        environment: {
          TABLE_NAME: this.table.table.tableName,
          UPGRADE_URL: settings.upgradeUrl,
          POWERTOOLS_SERVICE_NAME: serviceName,
          POWERTOOLS_LOG_LEVEL: settings.logLevel,
        },
        logRetention: settings.logRetention,
        logRemovalPolicy: settings.removalPolicy,
      });
      this.table.grant(fn.role, accessOf(constructId).table);
      return fn;
    };
    this.functions = {
      getPrompt: apiFunction(FUNCTION_IDS.getPrompt, 'lambda/read-api/get-prompt.ts', 'GET /prompts/{promptId}'),
      listPrompts: apiFunction(FUNCTION_IDS.listPrompts, 'lambda/read-api/list-prompts.ts', 'GET /prompts'),
      // It serves preflight, 405 and 404 itself, and dispatches /prompts forms the gateway does not match
      // (e.g. `/prompts/`), so it needs what both handlers need.
      fallback: apiFunction(FUNCTION_IDS.fallback, 'lambda/read-api/fallback.ts', 'Default route: preflight, 404, 405'),
      // A function of its own, so the GET functions' bundles and cold starts do not carry the MCP SDK.
      mcp: apiFunction(FUNCTION_IDS.mcp, 'lambda/mcp/mcp-function.ts', 'POST /mcp: the MCP endpoint (and its preflight and 405s)'),
    };
    for (const fn of Object.values(this.functions)) {
      Validations.of(fn.function).acknowledge({
        id: 'AwsSolutions-L1',
        reason:
          'The service is built and tested for nodejs22.x (esbuild target node22); moving to a newer ' +
          'runtime is a deliberate upgrade with its own test run, not a side effect of a lint rule.',
      });
    }

    this.api = new PromptApi(this, 'Api', {
      stage: settings.stage,
      getPrompt: this.functions.getPrompt.function,
      listPrompts: this.functions.listPrompts.function,
      fallback: this.functions.fallback.function,
      mcp: this.functions.mcp.function,
      throttleRateLimit: settings.throttleRateLimit,
      throttleBurstLimit: settings.throttleBurstLimit,
      wafRateLimitPer5Min: settings.wafRateLimit,
      serviceName,
      logRetention: settings.logRetention,
      logRemovalPolicy: settings.removalPolicy,
    });
    this.acknowledgeApiFindings(settings);

    this.userPool = new DashboardUserPool(this, 'Users', { stage: settings.stage, removalPolicy: settings.removalPolicy });
    Validations.of(this.userPool.pool).acknowledge({
      id: 'AwsSolutions-COG8',
      reason:
        'The pool is on the Essentials plan, which managed login needs. Plus adds threat protection (compromised ' +
        'credentials, adaptive authentication) at a higher price per monthly active user: a decision for the ' +
        'operator once the dashboard has users, not a default. TOTP MFA is offered to every user meanwhile.',
    });
    Validations.of(this.userPool.pool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason:
        'MFA is optional (TOTP, an authenticator app), as the issue decides: the people are invited by an admin, ' +
        'and requiring MFA of every member is an account-level policy the product has not chosen yet.',
    });

    this.managementApi = new ManagementApi(this, 'Management', {
      stage: settings.stage,
      userPool: this.userPool.pool,
      table: this.table,
      serviceName,
      logLevel: settings.logLevel,
      logRetention: settings.logRetention,
      logRemovalPolicy: settings.removalPolicy,
      models: settings.models,
    });
    this.addDashboard(this.managementApi.restApi);

    this.rollouts = new RolloutAutomation(this, 'Rollouts', {
      table: this.table,
      serviceName,
      logLevel: settings.logLevel,
      logRetention: settings.logRetention,
      logRemovalPolicy: settings.removalPolicy,
      reservedConcurrency: settings.reservedConcurrency,
    });

    this.events = new EventDelivery(this, 'Events', {
      table: this.table,
      serviceName,
      logLevel: settings.logLevel,
      logRetention: settings.logRetention,
      logRemovalPolicy: settings.removalPolicy,
      keyRemovalPolicy: settings.removalPolicy,
      deliveryConcurrency: settings.deliveryConcurrency,
      reservedConcurrency: settings.reservedConcurrency,
    });
    // The management function that creates and rotates webhooks seals their secrets: kms:Encrypt on the key, no more.
    for (const fn of Object.values(this.managementApi.functions)) this.events.grantEventAccess(fn, accessOf(fn.node.id));

    // Both stages write access logs, which need the account's logging role in place first.
    const loggingStages = [this.api.restApi.deploymentStage, this.managementApi.restApi.deploymentStage];
    if (settings.apiGatewayAccountRole) {
      this.apiGatewayAccount = new ApiGatewayAccount(this, 'ApiGatewayAccount');
      for (const stage of loggingStages) stage.node.addDependency(this.apiGatewayAccount.account);
      Validations.of(this.apiGatewayAccount.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:*]',
        reason:
          "API Gateway's account-wide logging role must write to the log groups of every REST API of the account " +
          "and region, which it names itself (API-Gateway-Execution-Logs_...): the log-group wildcard is AWS's own " +
          'managed policy, here limited to this account and region.',
      });
    }

    const apis = { ReadApi: this.api.restApi, ManagementApi: this.managementApi.restApi };
    const functions = Object.fromEntries(
      [
        ...Object.values(this.functions),
        ...Object.values(this.managementApi.functions),
        this.rollouts.steps,
        this.rollouts.guard,
        this.events.dispatcher,
        this.events.delivery,
      ].map((fn) => [fn.node.id, fn.function]),
    );
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      apis,
      serviceName,
      table: this.table.table,
      tableOperations: tableOperationsOf(Object.values(FUNCTION_ACCESS)),
      functions,
      deadLetterQueues: {
        GuardAlarm: this.rollouts.guardDeadLetters,
        EventDispatch: this.events.dispatchFailures,
        WebhookDelivery: this.events.deliveryDeadLetters,
      },
      alarmEmail: settings.alarmEmail,
    });
    this.dashboard = new ServiceDashboard(this, 'Dashboard', {
      stage: settings.stage,
      serviceName,
      api: this.api.restApi,
      accessLogs: this.api.accessLogs,
      refundFailed: this.alarms.refundFailed,
      apis,
      functions,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', {
      value: this.table.table.tableName,
      description: 'DynamoDB table; pass it as TABLE_NAME to the admin CLI',
    });
    new CfnOutput(this, 'Region', {
      value: Aws.REGION,
      description: 'Region of the stack; AWS_REGION for the admin CLI',
    });
    new CfnOutput(this, 'EventBusName', {
      value: this.events.bus.eventBusName,
      description: "EventBridge bus of the service's events (source prompt-retrieval); rules on it reach your automation",
    });
    new CfnOutput(this, 'EventBusArn', { value: this.events.bus.eventBusArn, description: 'ARN of the events bus' });
    new CfnOutput(this, 'DeliveryQueueUrl', { value: this.events.deliveryQueue.queueUrl, description: 'SQS queue of webhook deliveries' });
    new CfnOutput(this, 'DeliveryDeadLetterQueueUrl', {
      value: this.events.deliveryDeadLetters.queueUrl,
      description: 'Webhook deliveries the delivery function could not process',
    });
    new CfnOutput(this, 'DispatchFailuresQueueUrl', {
      value: this.events.dispatchFailures.queueUrl,
      description: 'Stream batches the event dispatcher could not dispatch after every retry',
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn, description: 'SNS topic of all alarms' });
    new CfnOutput(this, 'DashboardName', {
      value: this.dashboard.dashboard.dashboardName,
      description: 'CloudWatch dashboard of the service',
    });
    // Every function's name, to find its logs: GetPromptFunctionName ... ManageActivityFunctionName.
    for (const [id, fn] of Object.entries(functions)) {
      new CfnOutput(this, `${samFunctionId(id)}Name`, { value: fn.functionName, description: `Lambda function ${samFunctionId(id)}` });
    }
    new CfnOutput(this, 'UserPoolId', {
      value: this.userPool.pool.userPoolId,
      description: 'Cognito user pool of the dashboard; USER_POOL_ID for the admin CLI (members add)',
    });
    new CfnOutput(this, 'SignInUrl', { value: this.userPool.signInUrl, description: 'Managed login of the user pool' });
  }

  /** The dashboard's hosting and app client, once addDashboard has run. */
  get hostedDashboard(): { hosting: DashboardHosting; client: UserPoolClient } | undefined {
    return this.#dashboard;
  }

  /**
   * The dashboard's hosting (S3 and CloudFront, `/api/*` to the management API) and its app client, whose
   * callback is the distribution's URL. Given the management API's REST API, once it exists in the stack
   * (lib/management-api.ts): `this.addDashboard(managementApi.restApi)`.
   */
  addDashboard(managementApi: RestApiBase): DashboardHosting {
    if (this.#dashboard) throw new Error('the dashboard is already added');
    const hosting = new DashboardHosting(this, 'DashboardSite', {
      stage: this.#settings.stage,
      api: managementApi,
      signInUrl: this.userPool.signInUrl,
      removalPolicy: this.#settings.removalPolicy,
      logRetentionDays: this.#settings.logRetention,
    });
    const client = this.userPool.addDashboardClient(hosting.url);
    new DashboardFiles(this, 'DashboardFiles', {
      bucket: hosting.bucket,
      distribution: hosting.distribution,
      config: {
        authorizeUrl: `${this.userPool.signInUrl}/oauth2/authorize`,
        tokenUrl: `${this.userPool.signInUrl}/oauth2/token`,
        logoutUrl: `${this.userPool.signInUrl}/logout`,
        revokeUrl: `${this.userPool.signInUrl}/oauth2/revoke`,
        clientId: client.userPoolClientId,
        readApiUrl: this.api.restApi.url,
      },
      logRetention: this.#settings.logRetention,
      logRemovalPolicy: this.#settings.removalPolicy,
    });
    this.#dashboard = { hosting, client };
    const distribution = Validations.of(hosting.distribution);
    const defaultDomain =
      "The distribution answers on its default *.cloudfront.net name, whose certificate is CloudFront's own: " +
      'CloudFront then allows TLS 1.0 for viewers. A custom domain with an ACM certificate and TLSv1.2_2021 ' +
      'needs a domain the operator owns; browsers negotiate TLS 1.2 or 1.3 with it either way.';
    distribution.acknowledge({ id: 'AwsSolutions-CFR4', reason: defaultDomain });
    for (const rule of ['cloudfront_custom_ssl_certificate_check', 'cloudfront_sni_enabled_check', 'cloudfront_security_policy_check']) {
      acknowledgeGuardRule(hosting.distribution, rule, defaultDomain);
    }
    acknowledgeGuardRule(
      hosting.distribution,
      'cloudfront_origin_failover_enabled_check',
      "Each origin lives in the stack's one region: the files bucket and the management API. A failover origin would be " +
        'a copy of both in a second region, which a single-region stack does not have; CloudFront caches the files meanwhile.',
    );
    distribution.acknowledge({
      id: 'AwsSolutions-CFR1',
      reason:
        "The dashboard serves the service's customers wherever they are; no country is excluded by the product. " +
        'Every management request needs a Cognito ID token, and the API has its stage throttle.',
    });
    distribution.acknowledge({
      id: 'AwsSolutions-CFR2',
      reason:
        'A web ACL for CloudFront lives in us-east-1 and costs $5 a month plus $0.60 per million requests; the ' +
        "dashboard's files are static and every /api request is authenticated by the Cognito authorizer and " +
        "throttled by the management API's stage, so WAF is left to the operator, as for the read API.",
    });
    new CfnOutput(this, 'DashboardUrl', { value: hosting.url, description: 'The dashboard; the management API is under /api' });
    new CfnOutput(this, 'DashboardBucketName', {
      value: hosting.bucket.bucketName,
      description: "Bucket of the dashboard's files (dashboard/dist)",
    });
    new CfnOutput(this, 'DashboardDistributionId', { value: hosting.distribution.distributionId });
    new CfnOutput(this, 'UserPoolClientId', { value: client.userPoolClientId, description: "The dashboard's app client" });
    return hosting;
  }

  /** cdk-nag's findings on the REST API that are decisions, each with its reason. */
  private acknowledgeApiFindings(settings: ServiceSettings): void {
    const api = Validations.of(this.api.restApi);
    const inFunction =
      'Every route authenticates inside the function: a Bearer API key checked against its SHA-256 ' +
      'hash in the table, with the 401 bodies and headers the spec defines. A gateway authorizer would ' +
      'add a second key lookup per request, and preflight and the 404/405 answers must work without a key.';
    api.acknowledge({ id: 'AwsSolutions-APIG4', reason: inFunction });
    api.acknowledge({ id: 'AwsSolutions-COG4', reason: `API keys, not Cognito users, are the callers. ${inFunction}` });
    api.acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'The functions validate every parameter in the order docs/behaviour-rules.md fixes (method, route, key, quota, ' +
        'parameters); a gateway validator would answer 400 before the key and quota are checked, in its own words.',
    });
    api.acknowledge({
      id: 'AwsSolutions-APIG6',
      reason:
        'The access log has a JSON line per request with the gateway error type and message and the integration ' +
        "error; execution logs would add API Gateway's own log group, without a retention, for nothing more.",
    });
    if (settings.wafRateLimit === undefined) {
      api.acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'WAF is opt-in (-c wafRateLimit=<requests per IP in 5 minutes>), at $5 a month plus $0.60 per million ' +
          "requests: the stage's throttle caps the cost of all callers together and each key has its monthly quota.",
      });
    }
  }
}
