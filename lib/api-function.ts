import * as path from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, type CfnFunction, LoggingFormat, Runtime, SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { LOG_LEVELS, type LogLevel as PowertoolsLogLevel } from '../lambda/config';
import { acknowledgeFunctionOutsideVpc, acknowledgeLogGroupRules, suppressRoleDependencyFinding } from './policy-checks';

const PROJECT_ROOT = path.join(__dirname, '..');

/** The runtime every API function runs on, and the esbuild target that matches it. */
export const API_RUNTIME = Runtime.NODEJS_22_X;
const ESBUILD_TARGET = 'node22';

/**
 * 512 MB: Lambda gives CPU in proportion to memory, and a cold start (parsing the bundled SDK, building
 * the client) is CPU-bound, so it is roughly twice as fast as at 256 MB; warm requests wait on one to
 * three DynamoDB calls, so the cost per request stays a fraction of a microdollar either way.
 */
export const API_MEMORY_MB = 512;

/**
 * 6 s: the function answers every request within 5 s of its arrival, a store fault included (store
 * calls give up 3.5 s after arrival, giving back a quota unit by 4.5 s: lambda/http/store-deadline.ts).
 * The timeout sits just above, so it is reached only if something other than the store hangs, and then
 * quickly, instead of holding a request for the gateway's 30 s.
 */
export const API_TIMEOUT = Duration.seconds(6);

/**
 * Today's dependencies bundle to pure ESM, but a CommonJS one that calls `require('node:...')` would
 * make the bundle throw "Dynamic require is not supported" at run time; this gives such code a real `require`.
 */
const ESM_REQUIRE_BANNER = ["import { createRequire as __prsCreateRequire } from 'node:module';", 'const require = __prsCreateRequire(import.meta.url);'].join(
  ' ',
);

/**
 * The SDK's credential sources other than the environment, and the STS/SSO clients they use: the SDK
 * imports each only when the ones before it found nothing, and on Lambda (and under `sam local`) the
 * environment always has the credentials. Left out of the bundle, they cost nothing at load, about 13 ms
 * of the 50 ms a cold start may spend importing the bundle (docs/performance.md); anywhere without
 * credentials in the environment, the first store call fails naming the missing package.
 */
export const CREDENTIAL_SOURCES_LEFT_OUT = [
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-login',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-http',
  '@aws-sdk/token-providers',
  '@aws-sdk/nested-clients',
  '@smithy/credential-provider-imds',
];

/**
 * Lambda's own START, END and REPORT lines are not written (system log level WARN, which needs the JSON
 * log format): about 260 bytes a request, over a quarter again on top of the request's own line, for
 * what Lambda reports anyway as metrics of its own (Duration, Errors, Throttles) or the line already says
 * (its latency, cold start and request id). docs/logs-and-metrics.md says what goes with them and how to see them again.
 */
export const API_SYSTEM_LOG_LEVEL = SystemLogLevel.WARN;

const LAMBDA_LOG_LEVELS: Readonly<Record<PowertoolsLogLevel, ApplicationLogLevel>> = {
  TRACE: ApplicationLogLevel.TRACE,
  DEBUG: ApplicationLogLevel.DEBUG,
  INFO: ApplicationLogLevel.INFO,
  WARN: ApplicationLogLevel.WARN,
  ERROR: ApplicationLogLevel.ERROR,
  CRITICAL: ApplicationLogLevel.FATAL,
  SILENT: ApplicationLogLevel.FATAL,
};

/**
 * With the JSON log format Lambda also filters the function's lines by their level, and Powertools then
 * takes Lambda's level over POWERTOOLS_LOG_LEVEL: so Lambda's is read from that very variable, and the
 * two cannot differ.
 */
export function lambdaLogLevelFor(environment: Readonly<Record<string, string>>): ApplicationLogLevel {
  const level = (environment.POWERTOOLS_LOG_LEVEL ?? 'INFO').toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`POWERTOOLS_LOG_LEVEL ${level} is not one of ${LOG_LEVELS.join(', ')}`);
  return LAMBDA_LOG_LEVELS[level as PowertoolsLogLevel];
}

/** The id `sam local invoke` knows a function by: the construct id plus `Function`. */
export const samFunctionId = (constructId: string): string => `${constructId}Function`;

export interface ApiFunctionProps {
  /** The Lambda entry file under lambda/, exporting `handler`. */
  readonly entry: string;
  readonly description: string;
  readonly environment: Record<string, string>;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** API_TIMEOUT unless given: a function that answers no caller (lib/rollout-automation.ts) may take longer. */
  readonly timeout?: Duration;
  /**
   * Packages of CREDENTIAL_SOURCES_LEFT_OUT this function's code imports at load, not only when asked for: bundled
   * after all (the model SDK's client imports `@aws-sdk/token-providers` for Bedrock's bearer tokens), as an ES module
   * in Lambda resolves no package the bundle does not hold.
   */
  readonly bundledAfterAll?: readonly string[];
  /** Executions reserved for the function, which it never exceeds (the `reservedConcurrency` setting); none when absent. */
  readonly reservedConcurrency?: number;
  /** How Lambda handles a failed asynchronous invocation (an EventBridge rule's): retries, how long, and where it goes then. */
  readonly asyncInvocation?: {
    readonly retryAttempts: number;
    readonly maxEventAge: Duration;
    readonly deadLetterQueue?: IQueue;
  };
}

/**
 * One Lambda of the service (an API's, or the rollout automation's): bundled locally with esbuild into a single self-contained ESM file (the AWS SDK
 * included, so nothing is loaded from the runtime's copy), its own log group with a set retention,
 * and its own role that can write to that log group and nothing else until the table grants more.
 */
export class ApiFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    // A role of our own instead of AWSLambdaBasicExecutionRole, whose log rights cover every log group.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (execution role)`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      description: props.description,
      runtime: API_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: API_MEMORY_MB,
      timeout: props.timeout ?? API_TIMEOUT,
      ...(props.reservedConcurrency === undefined ? {} : { reservedConcurrentExecutions: props.reservedConcurrency }),
      ...(props.asyncInvocation ?? {}),
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      systemLogLevelV2: API_SYSTEM_LOG_LEVEL,
      applicationLogLevelV2: lambdaLogLevelFor(props.environment),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      environment: {
        ...props.environment,
        // Stack traces in the logs point at lambda/*.ts lines, through the bundled source map.
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        format: OutputFormat.ESM,
        target: ESBUILD_TARGET,
        minify: true,
        sourceMap: true,
        mainFields: ['module', 'main'],
        // Bundle the AWS SDK too: one file to load is a faster cold start than the runtime's copy.
        externalModules: CREDENTIAL_SOURCES_LEFT_OUT.filter((name) => !props.bundledAfterAll?.includes(name)),
        banner: ESM_REQUIRE_BANNER,
        // esbuild is a dev dependency; Docker is neither needed nor available.
        forceDockerBundling: false,
        // esbuild's size summary for each function repeated on every synth and test run; problems still show.
        logLevel: LogLevel.WARNING,
      },
    });
    const resource = this.function.node.defaultChild as CfnFunction;
    // SAM CLI would otherwise name them all "Function", after the last part of their construct paths.
    resource.addMetadata('SamResourceId', samFunctionId(id));
    suppressRoleDependencyFinding(resource);
    acknowledgeLogGroupRules(this.logGroup, props.logRetention);
    acknowledgeFunctionOutsideVpc(this.function);
  }
}
