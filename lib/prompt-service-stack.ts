import { Annotations, Aws, CfnOutput, Stack, type StackProps, Tags, Validations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ApiFunction } from './api-function';
import { PromptApi } from './prompt-api';
import { PromptTable } from './prompt-table';
import { ServiceAlarms } from './service-alarms';
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

/** The whole service: table, three functions, the HTTP API in front of them, alarms and outputs. */
export class PromptServiceStack extends Stack {
  readonly table: PromptTable;
  readonly api: PromptApi;
  readonly functions: Readonly<Record<keyof typeof FUNCTION_IDS, ApiFunction>>;
  readonly alarms: ServiceAlarms;

  constructor(scope: Construct, id: string, props: PromptServiceStackProps) {
    super(scope, id, {
      description: `Prompt retrieval service: HTTP API, Lambda and DynamoDB (stage ${props.settings.stage})`,
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

    const apiFunction = (constructId: string, entry: string, description: string): ApiFunction => {
      const fn = new ApiFunction(this, constructId, {
        entry,
        description,
        environment: { TABLE_NAME: this.table.table.tableName, UPGRADE_URL: settings.upgradeUrl },
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
      logRetention: settings.logRetention,
      logRemovalPolicy: settings.removalPolicy,
    });
    Validations.of(this.api.httpApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Every route authenticates inside the function: a Bearer API key checked against its SHA-256 ' +
        'hash in the table, with the 401 bodies and headers the spec defines. A gateway authorizer would ' +
        'add a second key lookup per request, and preflight and the 404/405 answers must work without a key.',
    });

    this.alarms = new ServiceAlarms(this, 'Alarms', {
      httpApi: this.api.httpApi,
      table: this.table.table,
      functions: Object.fromEntries(Object.values(this.functions).map((fn) => [fn.node.id, fn.function])),
      alarmEmail: settings.alarmEmail,
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
    new CfnOutput(this, 'GetPromptFunctionName', { value: this.functions.getPrompt.function.functionName });
    new CfnOutput(this, 'ListPromptsFunctionName', { value: this.functions.listPrompts.function.functionName });
    new CfnOutput(this, 'FallbackFunctionName', { value: this.functions.fallback.function.functionName });
  }
}
