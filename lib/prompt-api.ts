import type { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { GATEWAY_ROUTES, type RoutedFunction } from './gateway-routes';

export interface PromptApiProps {
  readonly stage: string;
  readonly getPrompt: IFunction;
  readonly listPrompts: IFunction;
  /** Everything no other route matches: preflight, 405, 404, in the service's own JSON. */
  readonly fallback: IFunction;
  readonly throttleRateLimit: number;
  readonly throttleBurstLimit: number;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

/** The `$default` stage serves at the API's root, so `rawPath` reaches the handlers without a stage prefix. */
export const DEFAULT_STAGE_NAME = '$default';

/**
 * One JSON line per request. Neither headers nor the query string are logged: the key travels in
 * `Authorization`, and nothing here may ever hold it.
 */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    time: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    method: '$context.httpMethod',
    path: '$context.path',
    routeKey: '$context.routeKey',
    status: '$context.status',
    responseLength: '$context.responseLength',
    latencyMs: '$context.responseLatency',
    integrationLatencyMs: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

/**
 * The HTTP API (payload 2.0): `GET /prompts` and `GET /prompts/{promptId}` to their functions, and the
 * `$default` route to the fallback, so that no request ever gets the gateway's own `{"message":"Not Found"}`.
 * The gateway's CORS support stays off on purpose: it would answer preflight itself with its own headers;
 * OPTIONS reaches the fallback, which answers as docs/behaviour-rules.md says.
 */
export class PromptApi extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: PromptApiProps) {
    super(scope, id);
    const payloadFormatVersion = PayloadFormatVersion.VERSION_2_0;

    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: `prompt-service-${props.stage}`,
      description: `Prompt retrieval service (${props.stage})`,
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration('FallbackIntegration', props.fallback, { payloadFormatVersion }),
    });
    const functions: Record<RoutedFunction, IFunction> = { listPrompts: props.listPrompts, getPrompt: props.getPrompt };
    for (const route of GATEWAY_ROUTES) {
      const integrationId = `${route.function[0]?.toUpperCase()}${route.function.slice(1)}Integration`;
      this.httpApi.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(integrationId, functions[route.function], { payloadFormatVersion }),
      });
    }

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: DEFAULT_STAGE_NAME,
      autoDeploy: true,
      // HTTP APIs throttle per stage and route, not per client: this caps what all callers together can
      // cost per second; each key's monthly quota is the per-client limit.
      throttle: { rateLimit: props.throttleRateLimit, burstLimit: props.throttleBurstLimit },
      accessLogSettings: { destination: new LogGroupLogDestination(this.accessLogs), format: ACCESS_LOG_FORMAT },
    });
  }

  /** The base URL callers use: `https://<api-id>.execute-api.<region>.amazonaws.com/`. */
  get url(): string {
    return this.stage.url;
  }
}
