import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { VALIDATE_AGAINST_DEFAULT_RULES } from 'aws-cdk-lib/cx-api';
import type { IConstruct } from 'constructs';
import { addPolicyChecks } from '../../lib/policy-checks';
import { PromptServiceStack } from '../../lib/prompt-service-stack';
import { settingsFromContext } from '../../lib/stack-config';

export const TEST_UPGRADE_URL = 'https://prompts.test/upgrade';

export interface SynthOptions {
  /** Context as `-c` would give it; `upgradeUrl` defaults to TEST_UPGRADE_URL. */
  readonly context?: Record<string, string>;
  /** Run esbuild for the functions (slower); off, the assets are left unbundled. */
  readonly bundle?: boolean;
  /** Where the cloud assembly goes; a temporary directory when absent. */
  readonly outdir?: string;
  /** Run cdk-nag and cfn-guard at synth, as bin/app.ts does: a finding not acknowledged stops `app.synth()`. */
  readonly policyChecks?: boolean;
  /** The region, as deploying credentials give it to bin/app.ts; unknown (a token) when absent. */
  readonly region?: string;
  /**
   * Run CDK's built-in CloudFormation validation, as `cdk synth` does, with its errors failing the synth (`cdk
   * synth` only warns). Off unless asked: its engine takes seconds of CPU to start in every test file, and
   * cfn-lint.test.ts runs it over every template variant.
   */
  readonly cloudFormationValidation?: boolean;
}

export interface SynthesizedService {
  readonly app: App;
  readonly stack: PromptServiceStack;
  readonly template: Template;
}

/** The context the CDK CLI sets on every synth; SAM CLI needs the metadata it turns on. */
export const CLI_DEFAULT_CONTEXT = {
  'aws:cdk:enable-path-metadata': true,
  'aws:cdk:enable-asset-metadata': true,
} as const;

/** An app with the context the CDK CLI gives bin/app.ts; CDK's own CloudFormation validation only when asked. */
export function testApp({
  bundle = false,
  outdir,
  cloudFormationValidation = false,
}: Pick<SynthOptions, 'bundle' | 'outdir' | 'cloudFormationValidation'> = {}): App {
  return new App({
    ...(outdir ? { outdir } : {}),
    builtinCloudFormationValidation: cloudFormationValidation,
    context: {
      ...CLI_DEFAULT_CONTEXT,
      // An empty list tells the asset system to bundle no stack, as `cdk deploy OtherStack` would.
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...(cloudFormationValidation ? { [VALIDATE_AGAINST_DEFAULT_RULES]: true } : {}),
    },
  });
}

/** The stack as bin/app.ts builds it from context, synthesized. */
export function synthesizeService({
  context = {},
  bundle = false,
  outdir,
  policyChecks = false,
  region,
  cloudFormationValidation = false,
}: SynthOptions = {}): SynthesizedService {
  const values: Record<string, string> = { upgradeUrl: TEST_UPGRADE_URL, ...context };
  const app = testApp({ bundle, outdir, cloudFormationValidation });
  if (policyChecks) addPolicyChecks(app);
  const settings = settingsFromContext((key) => values[key]);
  const props = { settings, ...(region ? { env: { region } } : {}) };
  const stack = bundle
    ? whileBundling(() => new PromptServiceStack(app, 'PromptService-test', props))
    : new PromptServiceStack(app, 'PromptService-test', props);
  return { app, stack, template: Template.fromStack(stack) };
}

/**
 * Bundling narrates itself: CDK writes "Bundling asset ..." for each function, and the npx it runs esbuild
 * through repeats npm's warnings about the machine's npm settings. Neither says anything about this
 * project, so a test run leaves them out; a failure still throws with esbuild's own message.
 */
function whileBundling<T>(build: () => T): T {
  const write = process.stderr.write;
  const logLevel = process.env.npm_config_loglevel;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean =>
    String(chunk).startsWith('Bundling asset ') || Reflect.apply(write, process.stderr, [chunk, ...rest])) as typeof write;
  process.env.npm_config_loglevel = 'error';
  try {
    return build();
  } finally {
    process.stderr.write = write;
    if (logLevel === undefined) delete process.env.npm_config_loglevel;
    else process.env.npm_config_loglevel = logLevel;
  }
}

export interface Acknowledgment {
  readonly path: string;
  /** As `acknowledge()` was given it: `AwsSolutions-IAM5[...]`, `cdk-validator-cfnguard::<rule>`. */
  readonly ruleId: string;
  readonly reason: string;
}

/** Every `Validations.of(x).acknowledge(...)` in the tree, read back from construct metadata. */
export function acknowledgmentsIn(root: IConstruct): Acknowledgment[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([ruleId, reason]) => ({
          path: construct.node.path,
          ruleId: ruleId.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

/**
 * The templates the settings can make, one per branch of the stack's code: every synthesized template the
 * linters check (cfn-lint.test.ts, and cfn-guard/ with a test file per variant).
 */
export const TEMPLATE_VARIANTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  defaults: {},
  'WAF, alarm email, throwaway, logs kept a year': {
    wafRateLimit: '2000',
    alarmEmail: 'ops@prompts.test',
    removalPolicy: 'destroy',
    logRetentionDays: '365',
  },
  'account logging role managed elsewhere': { apiGatewayAccountRole: 'false' },
  'concurrency reserved, deliveries at 50': { reservedConcurrency: 'true', deliveryConcurrency: '50' },
};
