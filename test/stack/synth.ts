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
export function synthesizeService({ context = {}, bundle = false, outdir }: SynthOptions = {}): SynthesizedService {
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
  const stack = new PromptServiceStack(app, 'PromptService-test', { settings });
  return { app, stack, template: Template.fromStack(stack) };
}
