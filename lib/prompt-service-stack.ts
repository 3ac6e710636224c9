import { Annotations, Aws, CfnOutput, Stack, type StackProps, Tags, Validations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { serviceNameFor } from '../lambda/metric-names';
import { ApiFunction } from './api-function';
import { ApiGatewayAccount } from './api-gateway-account';
import { PromptApi } from './prompt-api';
import { PromptTable } from './prompt-table';
import { ServiceAlarms } from './service-alarms';
import { ServiceDashboard } from './service-dashboard';
import { isPlaceholderUrl, type ServiceSettings } from './stack-config';

export interface PromptServiceStackProps extends StackProps {
  readonly settings: ServiceSettings;
}

/** Construct ids of the functions; `sam local invoke <id>Function` names them (see ApiFunction). */
export const FUNCTION_IDS = {
  getPrompt: 'GetPrompt',
  listPrompts: 'ListPrompts',
  fallback: 'Fallback',
} as const;

/** The whole service: table, three functions, the REST API in front of them, alarms, a dashboard and outputs. */
export class PromptServiceStack extends Stack {
  readonly table: PromptTable;
  readonly api: PromptApi;
  readonly functions: Readonly<Record<keyof typeof FUNCTION_IDS, ApiFunction>>;
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;
  readonly apiGatewayAccount: ApiGatewayAccount | undefined;

  constructor(scope: Construct, id: string, props: PromptServiceStackProps) {
    super(scope, id, {
      description: `Prompt retrieval service: REST API, Lambda and DynamoDB (stage ${props.settings.stage})`,
      ...props,
    });
    const { settings } = props;
    Tags.of(this).add('service', 'prompt-retrieval');
    Tags.of(this).add('stage', settings.stage);
    if (isPlaceholderUrl(settings.upgradeUrl)) {
      Annotations.of(this).addWarningV2(
        'prompt-service:placeholder-upgrade-url',
        `upgradeUrl is the placeholder ${settings.upgradeUrl}: 429 responses will send users there. ` +
          'Deploy with -c upgradeUrl=https://your.site/pricing',
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
      this.table.grantApiAccess(fn.role);
      return fn;
    };
    this.functions = {
      getPrompt: apiFunction(FUNCTION_IDS.getPrompt, 'lambda/get-prompt.ts', 'GET /prompts/{promptId}'),
      listPrompts: apiFunction(FUNCTION_IDS.listPrompts, 'lambda/list-prompts.ts', 'GET /prompts'),
      // It serves preflight, 405 and 404 itself, and dispatches /prompts forms the gateway does not match
      // (e.g. `/prompts/`), so it needs what both handlers need.
      fallback: apiFunction(FUNCTION_IDS.fallback, 'lambda/fallback.ts', 'Default route: preflight, 404, 405'),
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
      throttleRateLimit: settings.throttleRateLimit,
      throttleBurstLimit: settings.throttleBurstLimit,
      wafRateLimitPer5Min: settings.wafRateLimit,
      serviceName,
      logRetention: settings.logRetention,
      logRemovalPolicy: settings.removalPolicy,
    });
    this.acknowledgeApiFindings(settings);

    if (settings.apiGatewayAccountRole) {
      this.apiGatewayAccount = new ApiGatewayAccount(this, 'ApiGatewayAccount');
      // The stage's access logs need the account's role in place first.
      this.api.restApi.deploymentStage.node.addDependency(this.apiGatewayAccount.account);
      Validations.of(this.apiGatewayAccount.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:*]',
        reason:
          "API Gateway's account-wide logging role must write to the log groups of every REST API of the account " +
          "and region, which it names itself (API-Gateway-Execution-Logs_...): the log-group wildcard is AWS's own " +
          'managed policy, here limited to this account and region.',
      });
    }

    this.alarms = new ServiceAlarms(this, 'Alarms', {
      api: this.api.restApi,
      serviceName,
      table: this.table.table,
      functions: Object.fromEntries(Object.values(this.functions).map((fn) => [fn.node.id, fn.function])),
      alarmEmail: settings.alarmEmail,
    });
    this.dashboard = new ServiceDashboard(this, 'Dashboard', {
      stage: settings.stage,
      serviceName,
      api: this.api.restApi,
      accessLogs: this.api.accessLogs,
      refundFailed: this.alarms.refundFailed,
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
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn, description: 'SNS topic of all alarms' });
    new CfnOutput(this, 'DashboardName', {
      value: this.dashboard.dashboard.dashboardName,
      description: 'CloudWatch dashboard of the service',
    });
    new CfnOutput(this, 'GetPromptFunctionName', { value: this.functions.getPrompt.function.functionName });
    new CfnOutput(this, 'ListPromptsFunctionName', { value: this.functions.listPrompts.function.functionName });
    new CfnOutput(this, 'FallbackFunctionName', { value: this.functions.fallback.function.functionName });
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
