import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
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

/** The stack as bin/app.ts builds it from context, synthesized. */
export function synthesizeService({ context = {}, bundle = false, outdir, policyChecks = false, region }: SynthOptions = {}): SynthesizedService {
  const values: Record<string, string> = { upgradeUrl: TEST_UPGRADE_URL, ...context };
  const app = new App({
    ...(outdir ? { outdir } : {}),
    context: {
      ...CLI_DEFAULT_CONTEXT,
      // An empty list tells the asset system to bundle no stack, as `cdk deploy OtherStack` would.
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
    },
  });
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
