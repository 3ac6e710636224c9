import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
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
  /**
   * Add the dashboard's hosting and app client. Until the stack builds the management API
   * (lib/management-api.ts) and adds the dashboard itself, the read API stands in as the `/api/*` origin.
   */
  readonly dashboard?: boolean;
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
export function synthesizeService({ context = {}, bundle = false, outdir, dashboard = false }: SynthOptions = {}): SynthesizedService {
  const values: Record<string, string> = { upgradeUrl: TEST_UPGRADE_URL, ...context };
  const app = new App({
    ...(outdir ? { outdir } : {}),
    context: {
      ...CLI_DEFAULT_CONTEXT,
      // An empty list tells the asset system to bundle no stack, as `cdk deploy OtherStack` would.
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
    },
  });
  const settings = settingsFromContext((key) => values[key]);
  const stack = bundle
    ? whileBundling(() => new PromptServiceStack(app, 'PromptService-test', { settings }))
    : new PromptServiceStack(app, 'PromptService-test', { settings });
  if (dashboard && !stack.hostedDashboard) stack.addDashboard(stack.api.restApi);
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
