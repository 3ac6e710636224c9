import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { GUARD_NAMESPACE } from '../../lib/policy-checks';
import { acknowledgmentsIn as allAcknowledgmentsIn, synthesizeService } from './synth';

/** cdk-nag's acknowledgments: cfn-guard's are checked by the tests in cfn-guard/. */
const acknowledgmentsIn = (root: IConstruct) => allAcknowledgmentsIn(root).filter(({ ruleId }) => !ruleId.startsWith(`${GUARD_NAMESPACE}::`));

describe('cdk-nag AwsSolutions checks', () => {
  const { app, stack } = synthesizeService();
  app.synth();

  it('report no error and no warning that is not acknowledged', () => {
    const report = new AwsSolutionsChecks().validateScope(app);
    expect(report.violations).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('still find violations in this stack when its acknowledgments are ignored (the check is live)', () => {
    // The same stack built with every acknowledge() call ignored: exactly the acknowledged rules fire.
    const acknowledged = new Set(acknowledgmentsIn(stack).map((ack) => ack.ruleId));
    const ignore = jest.spyOn(Validations.prototype, 'acknowledge').mockImplementation(() => undefined);
    const { app: bare } = synthesizeService();
    ignore.mockRestore();
    const found = new Set(new AwsSolutionsChecks().validateScope(bare).violations.map((v) => v.ruleName));
    expect(found).toEqual(acknowledged);
  });

  it('are acknowledged only where the issue is a decision, each with a written reason', () => {
    const acknowledgments = acknowledgmentsIn(stack);
    expect(acknowledgments.map(({ path, ruleId }) => `${ruleId} ${path}`).sort()).toEqual([
      'AwsSolutions-APIG2 PromptService-test/Api/RestApi',
      'AwsSolutions-APIG2 PromptService-test/Management/RestApi',
      'AwsSolutions-APIG3 PromptService-test/Api/RestApi',
      'AwsSolutions-APIG3 PromptService-test/Management/RestApi',
      'AwsSolutions-APIG4 PromptService-test/Api/RestApi',
      'AwsSolutions-APIG6 PromptService-test/Api/RestApi',
      'AwsSolutions-APIG6 PromptService-test/Management/RestApi',
      'AwsSolutions-CFR1 PromptService-test/DashboardSite/Distribution',
      'AwsSolutions-CFR2 PromptService-test/DashboardSite/Distribution',
      'AwsSolutions-CFR4 PromptService-test/DashboardSite/Distribution',
      'AwsSolutions-COG2 PromptService-test/Users/Pool',
      'AwsSolutions-COG4 PromptService-test/Api/RestApi',
      'AwsSolutions-COG8 PromptService-test/Users/Pool',
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole] PromptService-test/Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C256MiB',
      'AwsSolutions-IAM5[Action::s3:Abort*] PromptService-test/Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C256MiB',
      'AwsSolutions-IAM5[Action::s3:DeleteObject*] PromptService-test/Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C256MiB',
      'AwsSolutions-IAM5[Action::s3:GetBucket*] PromptService-test/Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C256MiB',
      'AwsSolutions-IAM5[Action::s3:GetObject*] PromptService-test/Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C256MiB',
      'AwsSolutions-IAM5[Action::s3:List*] PromptService-test/Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C256MiB',
      'AwsSolutions-IAM5[Resource::*] PromptService-test/Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C256MiB',
      'AwsSolutions-IAM5[Resource::*] PromptService-test/Events/EventDispatcher/Role',
      'AwsSolutions-IAM5[Resource::<DashboardSiteFiles1232FF14.Arn>/*] PromptService-test/Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C256MiB',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:*] PromptService-test/ApiGatewayAccount/Role',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*] PromptService-test/Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C256MiB',
      'AwsSolutions-L1 PromptService-test/Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C256MiB',
      'AwsSolutions-L1 PromptService-test/Events/EventDispatcher/Function',
      'AwsSolutions-L1 PromptService-test/Events/WebhookDelivery/Function',
      'AwsSolutions-L1 PromptService-test/Fallback/Function',
      'AwsSolutions-L1 PromptService-test/GetPrompt/Function',
      'AwsSolutions-L1 PromptService-test/ListPrompts/Function',
      'AwsSolutions-L1 PromptService-test/Management/ManageAccounts/Function',
      'AwsSolutions-L1 PromptService-test/Management/ManageActivity/Function',
      'AwsSolutions-L1 PromptService-test/Management/ManageKeys/Function',
      'AwsSolutions-L1 PromptService-test/Management/ManageMembers/Function',
      'AwsSolutions-L1 PromptService-test/Management/ManagePrompts/Function',
      'AwsSolutions-L1 PromptService-test/Management/ManageWebhooks/Function',
      'AwsSolutions-L1 PromptService-test/Management/RunPrompts/Function',
      'AwsSolutions-L1 PromptService-test/Mcp/Function',
      'AwsSolutions-L1 PromptService-test/Rollouts/GuardAlarm/Function',
      'AwsSolutions-L1 PromptService-test/Rollouts/RolloutSteps/Function',
      'AwsSolutions-SQS3 PromptService-test/Events/DispatchFailures',
    ]);
    for (const { reason } of acknowledgments) {
      expect(reason.length).toBeGreaterThan(80);
    }
  });

  it('need no acknowledgment for WAF once the per-IP rule is deployed', () => {
    const { app: withWaf, stack: wafStack } = synthesizeService({ context: { wafRateLimit: '2000' } });
    expect(new AwsSolutionsChecks().validateScope(withWaf).violations).toEqual([]);
    const readApi = acknowledgmentsIn(wafStack).filter(({ path }) => path.endsWith('/Api/RestApi'));
    expect(readApi.map(({ ruleId }) => ruleId)).not.toContain('AwsSolutions-APIG3');
  });
});
