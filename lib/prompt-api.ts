import type { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat, EndpointType, type IResource, LambdaIntegration, LogGroupLogDestination, ResponseType, RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { FALLBACK_RESOURCES, GATEWAY_ANSWERS, GATEWAY_ROUTES, gatewayAnswerBody, gatewayAnswerHeaders, type RoutedFunction } from '../lambda/read-api/routes';
import { acknowledgeLogGroupRules, acknowledgeRestApiRules } from './policy-checks';

export interface PromptApiProps {
  readonly stage: string;
  readonly getPrompt: IFunction;
  readonly listPrompts: IFunction;
  /** Every other method and path: preflight, 405, 404, in the service's own JSON. */
  readonly fallback: IFunction;
  /** Every method of /mcp: the MCP endpoint, its preflight and its 405s. */
  readonly mcp: IFunction;
  readonly throttleRateLimit: number;
  readonly throttleBurstLimit: number;
  /** Requests one IP address may make in 5 minutes before WAF blocks it; no WAF when absent. */
  readonly wafRateLimitPer5Min: number | undefined;
  readonly serviceName: string;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

/**
 * One JSON line per request. Neither headers nor the query string are logged: the key travels in
 * `Authorization`, and nothing here may ever hold it. `responseType` names what the gateway answered
 * itself (THROTTLED, WAF_FILTERED, ...), and `latencyMs - integrationLatencyMs` is the gateway's own time.
 */
export const accessLogFormat = (serviceName: string): Record<string, string> => ({
  service: serviceName,
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  path: '$context.path',
  resource: '$context.resourcePath',
  status: '$context.status',
  responseType: '$context.error.responseType',
  error: '$context.error.message',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  integrationError: '$context.integration.error',
  waf: '$context.wafResponseCode',
});

/**
 * The REST API (Lambda proxy, payload 1.0): `GET /prompts` and `GET /prompts/{promptId}` to their
 * functions, every other method and path to the fallback, and every answer the gateway gives itself
 * (throttling, a body too large, a function that failed or timed out) rewritten by gateway responses
 * into the API's JSON error with CORS headers. A REST API rather than an HTTP API for that alone: an
 * HTTP API's own answers cannot be changed (docs/deploy.md says what it costs). The gateway's CORS
 * support stays off: OPTIONS reaches the fallback, which answers as docs/behaviour-rules.md says.
 */
export class PromptApi extends Construct {
  readonly restApi: RestApi;
  readonly accessLogs: LogGroup;
  readonly webAcl: CfnWebACL | undefined;

  constructor(scope: Construct, id: string, props: PromptApiProps) {
    super(scope, id);
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `prompt-service-${props.stage}`,
      description: `Prompt retrieval service (${props.stage})`,
      // Regional: an edge-optimized API puts CloudFront in front, with answers of its own.
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // Every type, so a gzipped (base64) list is sent as bytes whatever the caller's Accept says.
      binaryMediaTypes: ['*/*'],
      // The account-wide logging role is ApiGatewayAccount's (api-gateway-account.ts), not this API's.
      cloudWatchRole: false,
      deployOptions: {
        stageName: props.stage,
        // A ceiling on what all callers together can cost per second; each key's monthly quota is the
        // per-client limit, and the optional WAF rule a per-address one.
        throttlingRateLimit: props.throttleRateLimit,
        throttlingBurstLimit: props.throttleBurstLimit,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(accessLogFormat(props.serviceName))),
        // Execution logs could carry headers (the key): never.
        dataTraceEnabled: false,
      },
    });

    const functions: Record<RoutedFunction | 'fallback', IFunction> = {
      listPrompts: props.listPrompts,
      getPrompt: props.getPrompt,
      fallback: props.fallback,
      mcp: props.mcp,
    };
    // One integration per function; the test-invoke permissions of the console are left out.
    const integrations = new Map(Object.entries(functions).map(([name, fn]) => [name, new LambdaIntegration(fn, { proxy: true, allowTestInvoke: false })]));
    const resourceAt = (path: string): IResource => {
      let resource = this.restApi.root;
      for (const part of path.split('/').filter((segment) => segment !== '')) {
        resource = resource.getResource(part) ?? resource.addResource(part);
      }
      return resource;
    };
    for (const route of GATEWAY_ROUTES) resourceAt(route.path).addMethod(route.method, integrations.get(route.function));
    for (const path of FALLBACK_RESOURCES) resourceAt(path).addMethod('ANY', integrations.get('fallback'));

    for (const answer of GATEWAY_ANSWERS) {
      this.restApi.addGatewayResponse(answer.type, {
        type: ResponseType.of(answer.type),
        ...(answer.statusCode === undefined ? {} : { statusCode: String(answer.statusCode) }),
        responseHeaders: Object.fromEntries(Object.entries(gatewayAnswerHeaders(answer)).map(([name, value]) => [name, `'${value}'`])),
        templates: { 'application/json': gatewayAnswerBody(answer) },
      });
    }

    acknowledgeLogGroupRules(this.accessLogs, props.logRetention);
    acknowledgeRestApiRules(this.restApi, 'the API key (the Authorization header) of a failed request');

    this.webAcl = props.wafRateLimitPer5Min === undefined ? undefined : this.perIpRateRule(props.stage, props.wafRateLimitPer5Min);
  }

  /** WAF in front of the stage with one rule: an address over `limit` requests in 5 minutes is blocked (429 RATE_LIMITED). */
  private perIpRateRule(stage: string, limit: number): CfnWebACL {
    const metricName = `prompt-service-${stage}-per-ip`;
    const webAcl = new CfnWebACL(this, 'PerIpRateLimit', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: false },
      rules: [
        {
          name: 'per-ip-rate-limit',
          priority: 0,
          action: { block: {} },
          statement: { rateBasedStatement: { limit, aggregateKeyType: 'IP', evaluationWindowSec: 300 } },
          visibilityConfig: { cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: false },
        },
      ],
    });
    new CfnWebACLAssociation(this, 'PerIpRateLimitAssociation', {
      resourceArn: this.restApi.deploymentStage.stageArn,
      webAclArn: webAcl.attrArn,
    });
    return webAcl;
  }

  /** The base URL callers use: `https://<api-id>.execute-api.<region>.amazonaws.com/<stage>/`. */
  get url(): string {
    return this.restApi.url;
  }
}
