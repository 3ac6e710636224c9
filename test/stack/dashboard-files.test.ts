import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { DashboardFiles } from '../../lib/dashboard-files';
import { synthesizeService } from './synth';

/** `cdk synth` ships the dashboard: its built files and a config.json naming the stack's own user pool. */

jest.setTimeout(120_000);

test('synth builds the dashboard into the asset that is uploaded: the page, its script and its stylesheet', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'dashboard-files-'));
  try {
    // CDK's built-in CloudFormation validation checks these files' resources as part of the whole stack (cfn-lint.test.ts).
    const app = new App({ outdir, builtinCloudFormationValidation: false });
    const stack = new Stack(app, 'Files');
    const bucket = new Bucket(stack, 'Bucket');
    const distribution = new Distribution(stack, 'Distribution', { defaultBehavior: { origin: S3BucketOrigin.withOriginAccessControl(bucket) } });
    new DashboardFiles(stack, 'Dashboard', {
      bucket,
      distribution,
      config: {
        authorizeUrl: 'https://auth.example/oauth2/authorize',
        tokenUrl: 'https://auth.example/oauth2/token',
        logoutUrl: 'https://auth.example/logout',
        revokeUrl: 'https://auth.example/oauth2/revoke',
        clientId: 'client',
      },
      logRetention: RetentionDays.ONE_MONTH,
      logRemovalPolicy: RemovalPolicy.DESTROY,
    });
    app.synth();

    const [upload] = Object.values(Template.fromStack(stack).findResources('Custom::CDKBucketDeployment'));
    const [files] = (upload?.Properties.SourceObjectKeys ?? []) as string[];
    const folder = join(outdir, `asset.${String(files).replace(/\.zip$/, '')}`);
    expect(existsSync(join(folder, 'index.html'))).toBe(true);
    const built = readdirSync(join(folder, 'assets'));
    expect(built.some((name) => name.endsWith('.js'))).toBe(true);
    expect(built.some((name) => name.endsWith('.css'))).toBe(true);
    expect(readFileSync(join(folder, 'index.html'), 'utf8')).toContain('<div id="app">');
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
});

test("the stack uploads them with a config.json naming its pool's sign-in endpoints and the dashboard's client, and invalidates the distribution", () => {
  const { app, stack, template } = synthesizeService();
  const assembly = app.synth();
  const [upload] = Object.values(template.findResources('Custom::CDKBucketDeployment'));
  const properties = upload?.Properties as Record<string, unknown>;
  const dashboard = stack.hostedDashboard;
  if (!dashboard) throw new Error('the test stack has no dashboard');
  const logicalId = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);

  expect(properties.DestinationBucketName).toEqual({ Ref: logicalId(dashboard.hosting.bucket) });
  expect(properties.DistributionId).toEqual({ Ref: logicalId(dashboard.hosting.distribution) });
  expect(properties.DistributionPaths).toEqual(['/*']);
  expect(properties.Prune).toBe(true);
  expect(properties.SourceObjectKeys).toHaveLength(2);
  // config.json as staged: CloudFormation fills each marker with its value at deploy time.
  const [, configKey] = properties.SourceObjectKeys as string[];
  const staged = readFileSync(join(assembly.directory, `asset.${String(configKey).replace(/\.zip$/, '')}`, 'config.json'), 'utf8');
  const markers = (properties.SourceMarkers as Record<string, unknown>[])[1] ?? {};
  const filled = JSON.parse(staged.replace(/<<marker:0xbaba:\d+>>/g, (marker) => JSON.stringify(markers[marker]).replace(/"/g, "'"))) as Record<string, string>;
  expect(Object.keys(filled).sort()).toEqual(['authorizeUrl', 'clientId', 'logoutUrl', 'readApiUrl', 'revokeUrl', 'tokenUrl']);
  expect(filled.clientId).toBe(`{'Ref':'${stack.getLogicalId(dashboard.client.node.defaultChild as never)}'}`);
  expect(filled.authorizeUrl).toMatch(/\/oauth2\/authorize$/);
  expect(filled.tokenUrl).toMatch(/\/oauth2\/token$/);
  // Signing out goes through the pool's own sign-out endpoint and revokes the refresh token (docs/management-api.md, "The dashboard": Sign in and out).
  expect(filled.logoutUrl).toMatch(/\/logout$/);
  expect(filled.revokeUrl).toMatch(/\/oauth2\/revoke$/);
});
