import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { AssetHashType, type CfnElement, type CfnResource, DockerImage, type RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { IDistribution } from 'aws-cdk-lib/aws-cloudfront';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct, type IConstruct } from 'constructs';
import { acknowledgeFunctionOutsideVpc, acknowledgeLogGroupRules, suppressRoleDependencyFinding } from './policy-checks';

const REPOSITORY = resolve(__dirname, '..');
const DASHBOARD = join(REPOSITORY, 'dashboard');

/** What the page reads from /config.json on its own origin (deploy-time values: the pool's domain, the client id). */
export interface DashboardConfig {
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  /** The pool's sign-out endpoint and its refresh-token revocation: signing out ends the pool's session too. */
  readonly logoutUrl: string;
  readonly revokeUrl: string;
  readonly clientId: string;
  /** The read API's URL, for the code samples shown with a new key. */
  readonly readApiUrl?: string;
}

export interface DashboardFilesProps {
  readonly bucket: IBucket;
  readonly distribution: IDistribution;
  readonly config: DashboardConfig;
  /** How long the upload function's log lines are kept, as every other log group of the stack. */
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

/**
 * The dashboard's built files in its bucket, with the /config.json that names the user pool: `cdk synth` builds
 * dashboard/ with Vite (as npm run dashboard:build does, into the asset's own folder), and `cdk deploy` uploads
 * the result and invalidates the distribution. The
 * asset is named by what the build produced, so a change anywhere the page is built from (dashboard/src,
 * client/src's template parser, the version rules) ships, and an unchanged build uploads nothing.
 */
export class DashboardFiles extends Construct {
  readonly deployment: BucketDeployment;

  constructor(scope: Construct, id: string, props: DashboardFilesProps) {
    super(scope, id);
    const files = Source.asset(DASHBOARD, {
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Never pulled: the local build below always runs, as Node and the dev dependencies are what synth itself needs.
        image: DockerImage.fromRegistry('node:20-slim'),
        local: {
          tryBundle(outputDir: string): boolean {
            execFileSync(
              process.execPath,
              [
                join(REPOSITORY, 'node_modules', 'vite', 'bin', 'vite.js'),
                'build',
                '--config',
                join(DASHBOARD, 'vite.config.mts'),
                '--outDir',
                outputDir,
                '--emptyOutDir',
              ],
              { cwd: REPOSITORY, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NODE_ENV: 'production' } },
            );
            return true;
          },
        },
      },
    });
    // Without a log group of its own, the upload function's logs would go to one Lambda creates, kept forever.
    const logGroup = new LogGroup(this, 'UploadLogs', { retention: props.logRetention, removalPolicy: props.logRemovalPolicy });
    this.deployment = new BucketDeployment(this, 'Upload', {
      logGroup,
      sources: [files, Source.jsonData('config.json', props.config)],
      destinationBucket: props.bucket,
      // Browsers revalidate every file (an unchanged one is a 304): a new deploy shows at the next reload.
      cacheControl: [CacheControl.noCache()],
      distribution: props.distribution,
      distributionPaths: ['/*'],
      prune: true,
      memoryLimit: 256,
    });
    this.acknowledgeUploaderFindings(props.bucket);
    acknowledgeLogGroupRules(logGroup, props.logRetention);
  }

  /**
   * cdk-nag's findings on CDK's upload function (one per stack, shared by every BucketDeployment), each a
   * decision: it is aws-cdk-lib's code, running only during a deploy, with the rights the upload needs.
   */
  private acknowledgeUploaderFindings(bucket: IBucket): void {
    const uploaderFunction = this.deployment.handlerRole.node.scope as IConstruct;
    const uploader = Validations.of(uploaderFunction);
    const deployOnly = 'It runs only while CloudFormation deploys the stack, never on a request.';
    acknowledgeFunctionOutsideVpc(uploaderFunction);
    suppressRoleDependencyFinding(uploaderFunction.node.defaultChild as CfnResource);
    uploader.acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: `CDK's BucketDeployment function writes its own logs with the AWS managed basic execution policy. ${deployOnly}`,
    });
    const bucketObjects = `<${Stack.of(this).getLogicalId(bucket.node.defaultChild as CfnElement)}.Arn>/*`;
    // cdk-nag names the region as the stack has it: a token in tests, the region itself when bin/app.ts sets one.
    const region = Token.isUnresolved(Stack.of(this).region) ? '<AWS::Region>' : Stack.of(this).region;
    for (const [finding, why] of [
      ['Action::s3:GetObject*', 'reads the zipped dashboard from the CDK assets bucket'],
      ['Action::s3:GetBucket*', "reads the buckets' settings to copy the files with the right metadata"],
      ['Action::s3:List*', 'lists what the dashboard bucket holds, to remove the files a new build no longer has'],
      ['Action::s3:DeleteObject*', 'removes the files of an older build (prune), so only the current build is served'],
      ['Action::s3:Abort*', 'aborts its own multipart uploads when a deploy fails half-way'],
      [`Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-${region}/*`, 'reads the assets CDK uploaded to its bootstrap bucket'],
      [`Resource::${bucketObjects}`, "writes every object of the dashboard's own bucket"],
      ['Resource::*', 'invalidates the distribution after an upload: CloudFront has no resource-level permission for that'],
    ] as const) {
      uploader.acknowledge({ id: `AwsSolutions-IAM5[${finding}]`, reason: `CDK's BucketDeployment function ${why}. ${deployOnly}` });
    }
    uploader.acknowledge({
      id: 'AwsSolutions-L1',
      reason: `CDK's BucketDeployment function runs the runtime aws-cdk-lib chooses for it, updated with aws-cdk-lib. ${deployOnly}`,
    });
  }
}
