import { synthesizeService } from './synth';

/**
 * One stage deployed to two regions of one account (issue 27): the names that must be unique across an
 * account's regions (CloudFront's, IAM's, CloudWatch dashboards', S3 buckets') differ between the two
 * templates, or CloudFormation makes them up. The user pool's domain is unique per region by Cognito's
 * rule, and holds a piece of the stack's own id (dashboard-stack.test.ts).
 */

type Resource = { Type: string; Properties: Record<string, unknown> };

/** Where each such type keeps its name; absent, CloudFormation makes one up that is unique. */
const ACCOUNT_WIDE_NAMES: Readonly<Record<string, (properties: Record<string, unknown>) => unknown>> = {
  'AWS::CloudFront::ResponseHeadersPolicy': (p) => (p.ResponseHeadersPolicyConfig as { Name?: unknown }).Name,
  'AWS::CloudFront::OriginAccessControl': (p) => (p.OriginAccessControlConfig as { Name?: unknown }).Name,
  'AWS::CloudFront::Function': (p) => p.Name,
  'AWS::CloudFront::CachePolicy': (p) => (p.CachePolicyConfig as { Name?: unknown }).Name,
  'AWS::CloudFront::OriginRequestPolicy': (p) => (p.OriginRequestPolicyConfig as { Name?: unknown }).Name,
  'AWS::CloudWatch::Dashboard': (p) => p.DashboardName,
  'AWS::IAM::Role': (p) => p.RoleName,
  'AWS::IAM::ManagedPolicy': (p) => p.ManagedPolicyName,
  'AWS::S3::Bucket': (p) => p.BucketName,
};

/** A value as CloudFormation would compute it in `region`, for the pseudo parameters and functions names use. */
function evaluate(value: unknown, region: string): string {
  if (typeof value === 'string') return value;
  const node = value as Record<string, unknown>;
  if (node.Ref === 'AWS::Region') return region;
  if (node.Ref === 'AWS::AccountId') return '123456789012';
  if ('Fn::Join' in node) {
    const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => evaluate(part, region)).join(separator);
  }
  throw new Error(`cannot evaluate ${JSON.stringify(value)}: a name made of something other than text, the region and the account`);
}

function namesIn(region: string): Map<string, string> {
  const resources = synthesizeService({ region }).template.toJSON().Resources as Record<string, Resource>;
  const names = new Map<string, string>();
  for (const [id, resource] of Object.entries(resources)) {
    const nameOf = ACCOUNT_WIDE_NAMES[resource.Type];
    const name = nameOf?.(resource.Properties ?? {});
    if (name !== undefined) names.set(`${resource.Type} ${id}`, evaluate(name, region));
  }
  return names;
}

const ireland = namesIn('eu-west-1');
const virginia = namesIn('us-east-1');

it('names the CloudFront response headers policy, origin access control and function, and the dashboard, in each region', () => {
  const named = [...ireland.keys()].map((key) => key.split(' ')[0]);
  expect(named).toEqual(
    expect.arrayContaining([
      'AWS::CloudFront::ResponseHeadersPolicy',
      'AWS::CloudFront::OriginAccessControl',
      'AWS::CloudFront::Function',
      'AWS::CloudWatch::Dashboard',
    ]),
  );
  expect([...virginia.keys()].sort()).toEqual([...ireland.keys()].sort());
});

it.each([...ireland.keys()])('gives %s a name of its own in each region', (key) => {
  expect(virginia.get(key)).not.toBe(ireland.get(key));
  expect(ireland.get(key)).toContain('eu-west-1');
});
