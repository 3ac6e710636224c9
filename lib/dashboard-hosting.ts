import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { RestApiBase } from 'aws-cdk-lib/aws-apigateway';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  Function as EdgeFunction,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  S3OriginAccessControl,
  Signing,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { RestApiOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY } from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';
import { dashboardContentSecurityPolicy } from './dashboard-security-headers';
import { acknowledgeGuardRule } from './policy-checks';
import { regionalName } from './stack-config';

export interface DashboardHostingProps {
  readonly stage: string;
  /** The management API: CloudFront forwards `/api/*` to it unchanged (its resources start at /api). */
  readonly api: RestApiBase;
  /** The user pool's sign-in origin, `https://<prefix>.auth.<region>.amazoncognito.com`: the page calls its token endpoint. */
  readonly signInUrl: string;
  readonly removalPolicy: RemovalPolicy;
  /** Days the access logs (CloudFront's and the bucket's) are kept. */
  readonly logRetentionDays: number;
}

/**
 * How long a replaced or deleted file of the dashboard is kept: a deploy replaces every file, so the builds of
 * the last month can be restored by hand (an object's earlier version), and none is kept longer.
 */
export const NONCURRENT_FILES_DAYS = 30;

/** The path CloudFront sends to the management API; everything else is the dashboard's files. */
export const API_PATH_PATTERN = '/api/*';

/**
 * A single-page app's routes have no file: a viewer request for a path whose last segment has no dot is
 * the app's index.html. Only on the files' behaviour: a distribution-wide error response would also
 * rewrite the management API's own 403 and 404 answers into HTML.
 */
const SPA_ROUTES = `function handler(event) {
  var request = event.request;
  var last = request.uri.substring(request.uri.lastIndexOf('/') + 1);
  if (last.indexOf('.') === -1) request.uri = '/index.html';
  return request;
}`;

/**
 * The dashboard in AWS: its files in a private S3 bucket that only this distribution may read (origin
 * access control), and the management API on the same origin under /api, so the page needs no CORS.
 * Every answer, the API's included, carries the security headers: CSP, HSTS, nosniff, no framing, no referrer.
 */
export class DashboardHosting extends Construct {
  readonly bucket: Bucket;
  /** CloudFront's access logs (`cloudfront/`) and the files bucket's (`files/`), kept logRetentionDays. */
  readonly logBucket: Bucket;
  readonly distribution: Distribution;
  readonly headers: ResponseHeadersPolicy;

  constructor(scope: Construct, id: string, props: DashboardHostingProps) {
    super(scope, id);
    // Server access logs are let in by a bucket policy, not the deprecated canned ACL (set before any child).
    this.node.setContext(S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY, true);
    this.logBucket = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      // CloudFront's standard logs are delivered with an ACL: the one bucket here that keeps ACLs on.
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [{ expiration: Duration.days(props.logRetentionDays) }],
      removalPolicy: props.removalPolicy,
    });
    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      lifecycleRules: [
        {
          noncurrentVersionExpiration: Duration.days(NONCURRENT_FILES_DAYS),
          // A file removed by a deploy leaves a delete marker; once its versions are gone, the marker goes too.
          expiredObjectDeleteMarker: true,
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      serverAccessLogsBucket: this.logBucket,
      serverAccessLogsPrefix: 'files/',
      removalPolicy: props.removalPolicy,
    });
    this.acknowledgeBucketRules();

    this.headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      responseHeadersPolicyName: regionalName(props.stage, 'security-headers'),
      comment: `Dashboard security headers (${props.stage})`,
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: dashboardContentSecurityPolicy(props.signInUrl), override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });

    const spaRoutes = new EdgeFunction(this, 'SpaRoutes', {
      code: FunctionCode.fromInline(SPA_ROUTES),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Single-page app routes to index.html',
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Prompt service dashboard (${props.stage})`,
      defaultRootObject: 'index.html',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: 'cloudfront/',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket, {
          originAccessControl: new S3OriginAccessControl(this, 'FilesAccess', {
            originAccessControlName: regionalName(props.stage, 'files'),
            signing: Signing.SIGV4_ALWAYS,
          }),
        }),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.headers,
        compress: true,
        functionAssociations: [{ function: spaRoutes, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        [API_PATH_PATTERN]: {
          origin: new RestApiOrigin(props.api),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          // Nothing of the API is cached, and with caching off the viewer's headers, Authorization
          // included, go to the API; Host is the API's own, or API Gateway would not know the request.
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: this.headers,
          compress: true,
        },
      },
    });
  }

  /** The cfn-guard rules on the two buckets that are decisions, each with its reason. */
  private acknowledgeBucketRules(): void {
    for (const [bucket, holds] of [
      [this.bucket, "the dashboard's built files, public once served"],
      [this.logBucket, "CloudFront's and the files bucket's access logs"],
    ] as const) {
      acknowledgeGuardRule(
        bucket,
        's3_bucket_default_encryption_kms_check',
        `Encrypted at rest with S3-managed keys. It holds ${holds}; a customer KMS key would need a key policy for ` +
          "CloudFront and S3's log delivery and a KMS request per object, and would protect nothing more.",
      );
      acknowledgeGuardRule(
        bucket,
        's3_event_notifications_enabled_check',
        `Nothing reacts to its objects (${holds}): they change only by a deploy or by log delivery, and are read when needed.`,
      );
    }
    acknowledgeGuardRule(
      this.bucket,
      's3_bucket_object_lock_enabled_check',
      `Every deploy replaces the files and prunes the old ones, which object lock would refuse; earlier versions are kept ${NONCURRENT_FILES_DAYS} days to restore one by hand.`,
    );
    acknowledgeGuardRule(
      this.logBucket,
      's3_bucket_object_lock_enabled_check',
      'Access logs expire after -c logRetentionDays; object lock would keep them longer than the operator chose, and past cdk destroy.',
    );
    acknowledgeGuardRule(
      this.logBucket,
      's3_bucket_versioning_enabled_check',
      'Log objects are written once and expire after -c logRetentionDays: versions would only keep expired logs longer.',
    );
    acknowledgeGuardRule(
      this.logBucket,
      's3_bucket_logging_enabled_check',
      'It is the log bucket: its own access logs would go into itself, a loop, or into a third bucket that asks the same.',
    );
  }

  /** `https://<id>.cloudfront.net/`: the dashboard, and the app client's callback. */
  get url(): string {
    return `https://${this.distribution.distributionDomainName}/`;
  }
}
