import type { CfnElement } from 'aws-cdk-lib';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { API_PATH_PATTERN, NONCURRENT_FILES_DAYS } from '../../lib/dashboard-hosting';
import { PASSWORD_POLICY } from '../../lib/password-policy';
import { synthesizeService } from './synth';

/** The user pool, the dashboard's app client, and its hosting (S3 behind CloudFront, /api/* to the API), from the template. */

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };
type Statement = { Effect: string; Principal?: unknown; Action: string | string[]; Condition?: unknown };

const { stack, template } = synthesizeService();
const hosted = stack.hostedDashboard;
if (!hosted) throw new Error('the dashboard was not added');
const logicalId = (element: { node: { defaultChild?: unknown } }): string => stack.getLogicalId(element.node.defaultChild as CfnElement);
const resources = (type: string): Record<string, Resource> => template.findResources(type) as Record<string, Resource>;
const only = (type: string): Resource => {
  const found = Object.values(resources(type));
  expect(found).toHaveLength(1);
  return found[0] as Resource;
};
const distributionConfig = () => only('AWS::CloudFront::Distribution').Properties.DistributionConfig as Record<string, unknown>;
const dashboardUrl = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalId(hosted.hosting.distribution), 'DomainName'] }, '/']] };

describe('the user pool', () => {
  const pool = () => only('AWS::Cognito::UserPool').Properties;

  it('has self sign-up off: only admins (the CLI, an account admin) add people', () => {
    expect(pool().AdminCreateUserConfig).toMatchObject({ AllowAdminCreateUserOnly: true });
  });

  it('signs people in by email, case-insensitively', () => {
    expect(pool().UsernameAttributes).toEqual(['email']);
    expect(pool().UsernameConfiguration).toEqual({ CaseSensitive: false });
  });

  it('holds passwords to the policy the local stand-in enforces too', () => {
    expect(pool().Policies).toEqual({
      PasswordPolicy: {
        MinimumLength: PASSWORD_POLICY.minLength,
        RequireLowercase: true,
        RequireUppercase: true,
        RequireNumbers: true,
        RequireSymbols: true,
        TemporaryPasswordValidityDays: PASSWORD_POLICY.tempPasswordValidityDays,
      },
    });
    expect(PASSWORD_POLICY.minLength).toBeGreaterThanOrEqual(12);
  });

  it('keeps the old email in force until a changed one is verified', () => {
    expect(pool().UserAttributeUpdateSettings).toEqual({ AttributesRequireVerificationBeforeUpdate: ['email'] });
  });

  it('offers MFA with an authenticator app (TOTP), optional, and no SMS', () => {
    expect(pool().MfaConfiguration).toBe('OPTIONAL');
    expect(pool().EnabledMfas).toEqual(['SOFTWARE_TOKEN_MFA']);
  });

  it('is on the Essentials plan (managed login), recovers by email only, and is kept and protected by default', () => {
    expect(pool().UserPoolTier).toBe('ESSENTIALS');
    expect(pool().AccountRecoverySetting).toEqual({ RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] });
    expect(pool().DeletionProtection).toBe('ACTIVE');
    expect(only('AWS::Cognito::UserPool').DeletionPolicy).toBe('Retain');
  });

  it('is deleted with a throwaway stage', () => {
    const { template: throwaway } = synthesizeService({ context: { removalPolicy: 'destroy' } });
    const [destroyed] = Object.values(throwaway.findResources('AWS::Cognito::UserPool')) as Resource[];
    expect(destroyed?.DeletionPolicy).toBe('Delete');
    expect(destroyed?.Properties.DeletionProtection).toBe('INACTIVE');
  });

  it('has a managed-login domain, unique to the stack, with a style for the dashboard client', () => {
    const domain = only('AWS::Cognito::UserPoolDomain').Properties;
    expect(domain.ManagedLoginVersion).toBe(2);
    expect(JSON.stringify(domain.Domain)).toContain('"prompts-prod-"');
    expect(JSON.stringify(domain.Domain)).toContain('AWS::StackId');
    expect(only('AWS::Cognito::ManagedLoginBranding').Properties).toMatchObject({
      UseCognitoProvidedValues: true,
      ClientId: { Ref: logicalId(hosted.client) },
    });
  });
});

describe("the dashboard's app client", () => {
  const client = () => only('AWS::Cognito::UserPoolClient').Properties;

  it('is public (no secret) and uses the authorization-code flow only, for the PKCE sign-in', () => {
    expect(client()).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email', 'profile'],
      SupportedIdentityProviders: ['COGNITO'],
    });
  });

  it('has no password flows of its own: people sign in on the managed login page', () => {
    expect(client().ExplicitAuthFlows).toEqual(['ALLOW_REFRESH_TOKEN_AUTH']);
  });

  it("sends people back to the dashboard's CloudFront URL only", () => {
    expect(client().CallbackURLs).toEqual([dashboardUrl]);
    expect(client().LogoutURLs).toEqual([dashboardUrl]);
  });

  it('gives hour-long ID and access tokens, hides whether an email has an account, and can revoke tokens', () => {
    expect(client()).toMatchObject({
      IdTokenValidity: 60,
      AccessTokenValidity: 60,
      TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes' },
      PreventUserExistenceErrors: 'ENABLED',
      EnableTokenRevocation: true,
    });
  });
});

describe('the distribution', () => {
  const origins = () => distributionConfig().Origins as Record<string, unknown>[];
  const originById = (id: unknown) => origins().find((origin) => origin.Id === id) as Record<string, unknown>;
  const apiBehaviour = () => (distributionConfig().CacheBehaviors as Record<string, unknown>[])[0] as Record<string, unknown>;

  it('serves the files from the private bucket through origin access control, over HTTPS', () => {
    const behaviour = distributionConfig().DefaultCacheBehavior as Record<string, unknown>;
    const origin = originById(behaviour.TargetOriginId);

    expect(origin.DomainName).toEqual({ 'Fn::GetAtt': [logicalId(hosted.hosting.bucket), 'RegionalDomainName'] });
    expect(origin.OriginAccessControlId).toBeDefined();
    expect(origin.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    expect(behaviour.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(behaviour.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(distributionConfig().DefaultRootObject).toBe('index.html');
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: { OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' },
    });
  });

  it("routes the single-page app's paths to index.html on the files behaviour only, never the API's answers", () => {
    const behaviour = distributionConfig().DefaultCacheBehavior as Record<string, unknown>;
    expect(behaviour.FunctionAssociations).toEqual([{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [expect.any(String), 'FunctionARN'] } }]);
    expect(distributionConfig().CustomErrorResponses).toBeUndefined();
    expect(apiBehaviour().FunctionAssociations).toBeUndefined();
  });

  it('sends /api/* to the API, path unchanged under its stage, every method, nothing cached, Authorization forwarded', () => {
    const behaviour = apiBehaviour();
    const origin = originById(behaviour.TargetOriginId);

    expect(behaviour.PathPattern).toBe(API_PATH_PATTERN);
    expect(behaviour.AllowedMethods).toEqual(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']);
    expect(behaviour.ViewerProtocolPolicy).toBe('https-only');
    expect(behaviour.CachePolicyId).toBe(CachePolicy.CACHING_DISABLED.cachePolicyId);
    // With caching off, every viewer header but Host (Authorization too) reaches the API.
    expect(behaviour.OriginRequestPolicyId).toBe(OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId);
    expect(JSON.stringify(origin.DomainName)).toContain(logicalId(stack.managementApi.restApi));
    expect(JSON.stringify(origin.OriginPath)).toContain('Fn::Select');
    expect(origin.CustomOriginConfig).toEqual({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
  });

  it("sends the security headers on every answer, the API's included: CSP, HSTS, nosniff, no framing, no referrer", () => {
    const policyRef = { Ref: logicalId(hosted.hosting.headers) };
    expect((distributionConfig().DefaultCacheBehavior as Record<string, unknown>).ResponseHeadersPolicyId).toEqual(policyRef);
    expect(apiBehaviour().ResponseHeadersPolicyId).toEqual(policyRef);

    const headers = (only('AWS::CloudFront::ResponseHeadersPolicy').Properties.ResponseHeadersPolicyConfig as Record<string, unknown>)
      .SecurityHeadersConfig as Record<string, Record<string, unknown>>;
    expect(headers.StrictTransportSecurity).toEqual({ AccessControlMaxAgeSec: 31_536_000, IncludeSubdomains: true, Override: true });
    expect(headers.ContentTypeOptions).toEqual({ Override: true });
    expect(headers.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(headers.ReferrerPolicy).toEqual({ ReferrerPolicy: 'no-referrer', Override: true });
    const csp = JSON.stringify(headers.ContentSecurityPolicy);
    expect(csp).toContain("default-src 'none'; script-src 'self'");
    expect(csp).toContain("connect-src 'self' https://");
    expect(csp).toContain('.amazoncognito.com');
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('logs its requests to the log bucket', () => {
    expect(distributionConfig().Logging).toEqual({
      Bucket: { 'Fn::GetAtt': [logicalId(hosted.hosting.logBucket), 'RegionalDomainName'] },
      Prefix: 'cloudfront/',
    });
  });
});

describe("the dashboard's bucket", () => {
  const files = () => resources('AWS::S3::Bucket')[logicalId(hosted.hosting.bucket)] as Resource;
  const policyStatements = (): Statement[] => {
    const policy = Object.values(resources('AWS::S3::BucketPolicy')).find(
      (candidate) => JSON.stringify(candidate.Properties.Bucket) === JSON.stringify({ Ref: logicalId(hosted.hosting.bucket) }),
    );
    if (!policy) throw new Error("no policy on the dashboard's bucket");
    return (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
  };

  it('is private: all public access blocked, no ACLs, encrypted, versioned', () => {
    expect(files().Properties).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      VersioningConfiguration: { Status: 'Enabled' },
    });
  });

  it(`keeps a replaced or deleted file ${NONCURRENT_FILES_DAYS} days, then lets it go, with its delete marker and any upload left half-way`, () => {
    expect(files().Properties.LifecycleConfiguration).toEqual({
      Rules: [
        {
          Status: 'Enabled',
          NoncurrentVersionExpiration: { NoncurrentDays: NONCURRENT_FILES_DAYS },
          ExpiredObjectDeleteMarker: true,
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
        },
      ],
    });
  });

  it('lets only this distribution read it, and refuses plain HTTP', () => {
    const statements = policyStatements();
    const allows = statements.filter((statement) => statement.Effect === 'Allow');

    expect(allows).toEqual([
      expect.objectContaining({
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Condition: { StringEquals: { 'AWS:SourceArn': expect.anything() } },
      }),
    ]);
    expect(JSON.stringify(allows[0]?.Condition)).toContain(logicalId(hosted.hosting.distribution));
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
  });
});

describe('the outputs', () => {
  it('give the dashboard URL, the user pool, its client and the sign-in URL', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;

    expect(outputs.DashboardUrl?.Value).toEqual(dashboardUrl);
    expect(outputs.UserPoolId?.Value).toEqual({ Ref: logicalId(stack.userPool.pool) });
    expect(outputs.UserPoolClientId?.Value).toEqual({ Ref: logicalId(hosted.client) });
    expect(JSON.stringify(outputs.SignInUrl?.Value)).toContain('.amazoncognito.com');
    expect(outputs.DashboardBucketName?.Value).toEqual({ Ref: logicalId(hosted.hosting.bucket) });
  });
});
