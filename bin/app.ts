#!/usr/bin/env node
import { App } from 'aws-cdk-lib';
import { addPolicyChecks } from '../lib/policy-checks';
import { PromptServiceStack } from '../lib/prompt-service-stack';
import { SettingsError, settingsFromContext, stackNameFor } from '../lib/stack-config';

const app = new App();

let settings: ReturnType<typeof settingsFromContext>;
try {
  settings = settingsFromContext((key) => app.node.tryGetContext(key));
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  // One line, no stack trace: the message says which -c option to fix.
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

new PromptServiceStack(app, stackNameFor(settings.stage), {
  settings,
  // Account and region come from the deploying credentials (`cdk deploy --profile`, AWS_REGION, ...).
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});

// The rules the tests enforce (cdk-nag's AwsSolutions, cfn-guard's Control Tower rules) run on every synth and
// deploy; a finding not acknowledged in code stops both.
addPolicyChecks(app);
