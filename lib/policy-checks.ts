import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { type App, type CfnResource, Validations } from 'aws-cdk-lib';
import { type ILogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/**
 * The rules every synth and deploy is held to (bin/app.ts, and the tests' synth): cdk-nag's AwsSolutions pack
 * and the AWS Control Tower proactive controls that @cdklabs/cdk-validator-cfnguard ships as cfn-guard rules
 * (run by the cfn-guard binary inside that package: no download, no network). A finding that is not
 * acknowledged in code, with a written reason, stops the synth.
 */
export function addPolicyChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }), new CfnGuardValidator());
}

/** The namespace CDK gives the cfn-guard plugin's rules: `cdk-validator-cfnguard::<rule>`. */
export const GUARD_NAMESPACE = 'cdk-validator-cfnguard';

/** A cfn-guard rule that is a decision here, acknowledged on the construct it concerns (and what it holds). */
export function acknowledgeGuardRule(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `${GUARD_NAMESPACE}::${rule}`, reason });
}

/** The retention Control Tower asks of a log group; the stack keeps logs for `-c logRetentionDays`. */
const CONTROL_TOWER_RETENTION = RetentionDays.ONE_YEAR;

/** The two decisions every log group of the stack carries. */
export function acknowledgeLogGroupRules(logGroup: ILogGroup, retention: RetentionDays): void {
  if (retention < CONTROL_TOWER_RETENTION) {
    acknowledgeGuardRule(
      logGroup,
      'cloudwatch_log_group_retention_period_check',
      `Logs are kept -c logRetentionDays (${retention} days here; 30 by default), the operator's choice of cost against ` +
        'history: request lines are about 1 KB each. A deployment that must keep a year passes -c logRetentionDays=365.',
    );
  }
  acknowledgeGuardRule(
    logGroup,
    'cloudwatch_log_group_encrypted_check',
    'CloudWatch Logs encrypts every log group at rest with its own keys. A customer key would add a key policy for the ' +
      'logs service and $1 a month per key for no control the service needs: the lines hold no key, token or prompt content.',
  );
}

/** A function outside any VPC: what every function of the stack is. */
export function acknowledgeFunctionOutsideVpc(fn: IConstruct): void {
  acknowledgeGuardRule(
    fn,
    'lambda_inside_vpc_check',
    'The functions reach only public AWS endpoints (DynamoDB, Cognito, CloudWatch Logs) over TLS with their own role. ' +
      'A VPC would add NAT gateways or interface endpoints (about $7 a month each per zone) and cold-start time, and ' +
      'protect no resource of the stack, which has none inside a VPC.',
  );
}

/**
 * Tells cfn-lint (test/stack/cfn-lint.test.ts runs it over every synthesized template) that a finding on this
 * resource is known: `Metadata.cfn-lint.config.ignore_checks` is what cfn-lint reads, and `reasons` beside it
 * says why to whoever reads the template.
 */
export function suppressLintFinding(resource: CfnResource, check: string, reason: string): void {
  const current = (resource.getMetadata('cfn-lint') ?? {}) as {
    config?: { ignore_checks?: string[] };
    reasons?: Record<string, string>;
  };
  resource.addMetadata('cfn-lint', {
    ...current,
    config: { ...current.config, ignore_checks: [...(current.config?.ignore_checks ?? []), check] },
    reasons: { ...current.reasons, [check]: reason },
  });
}

/** CDK's DependsOn of a function on its role, which cfn-lint calls redundant with the GetAtt of the role (W3005). */
export function suppressRoleDependencyFinding(fn: CfnResource): void {
  suppressLintFinding(
    fn,
    'W3005',
    "CDK makes each function depend on its role construct, the role and its policy, so that the function's first " +
      'invocation has its rights; the role half is also implied by the GetAtt of its ARN, which is all cfn-lint says.',
  );
}

/** The cfn-guard rules both REST APIs answer the same way. */
export function acknowledgeRestApiRules(restApi: IConstruct, carries: string): void {
  acknowledgeGuardRule(
    restApi,
    'api_gw_v1_execution_logging_enabled_check',
    `The access log has a JSON line per request with the gateway's error and the integration's; execution logs would ` +
      `add API Gateway's own log group, which the stack cannot give a retention, and could hold ${carries}.`,
  );
  acknowledgeGuardRule(
    restApi,
    'api_gw_xray_enabled_check',
    "X-Ray records $5 per million traces; the access log already has every request's gateway and integration latency, " +
      'the functions log their store round trips, and the dashboard graphs both: tracing is left to the operator.',
  );
  acknowledgeGuardRule(
    restApi,
    'lambda_function_public_access_prohibited_check',
    "Every permission names apigateway.amazonaws.com and this API's own execute-api ARN as SourceArn, built with " +
      'Fn::Join from the API id, region and account: the rule reads only a literal string, a Ref or a GetAtt there.',
  );
}
