import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  ADMIN_INDEX,
  ADMIN_INDEX_ATTRIBUTES,
  ADMIN_INDEX_PARTITION_KEY,
  ADMIN_INDEX_SORT_KEY,
  PARTITION_KEY,
  SORT_KEY,
  TTL_ATTRIBUTE,
} from '../lambda/table/schema';
import type { TableGrant } from './function-access';

export interface PromptTableProps {
  readonly removalPolicy: RemovalPolicy.RETAIN | RemovalPolicy.DESTROY;
}

/** The service's single table, keyed exactly as lambda/table/schema.ts describes. */
export class PromptTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: PromptTableProps) {
    super(scope, id);
    const retain = props.removalPolicy === RemovalPolicy.RETAIN;
    this.table = new Table(this, 'Table', {
      partitionKey: { name: PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: SORT_KEY, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // AWS-managed KMS key: encrypted at rest with every key use in CloudTrail, and no key policy or
      // kms:Decrypt grants to maintain (a customer key would add both and $1/month for no new control here).
      encryption: TableEncryption.AWS_MANAGED,
      // A retained table also refuses deletion from the console or API until this is switched off.
      deletionProtection: retain,
      removalPolicy: props.removalPolicy,
      // The outbox's way out (docs/events.md "How it is delivered"): each new event item reaches the dispatcher. New
      // images only: the dispatcher reads what was written, never what was there before.
      stream: StreamViewType.NEW_IMAGE,
      // Events and webhook deliveries are kept 30 days, then DynamoDB removes them at no write cost.
      timeToLiveAttribute: TTL_ATTRIBUTE,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: ADMIN_INDEX,
      partitionKey: { name: ADMIN_INDEX_PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: ADMIN_INDEX_SORT_KEY, type: AttributeType.STRING },
      projectionType: ProjectionType.INCLUDE,
      nonKeyAttributes: [...ADMIN_INDEX_ATTRIBUTES],
    });
  }

  /** A function's statements on the table and its admin index (lib/function-access.ts), and nothing more. */
  grant(grantee: IGrantable, grants: readonly TableGrant[]): void {
    for (const grant of grants) {
      grantee.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({
          sid: grant.sid,
          actions: [...grant.actions],
          resources: [grant.on === 'table' ? this.table.tableArn : `${this.table.tableArn}/index/${ADMIN_INDEX}`],
          // ForAllValues: every partition key a request names (a BatchGetItem names many) must match. A Query of the
          // index names the index's partition key; ForAllValues holds where no key is named, so a condition
          // here can narrow a grant and never refuse what the patterns allow.
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...grant.partitions] } },
        }),
      );
    }
  }
}
