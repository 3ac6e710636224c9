import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  Operation,
  ProjectionType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  ADMIN_INDEX,
  ADMIN_INDEX_ATTRIBUTES,
  ADMIN_INDEX_PARTITION_KEY,
  ADMIN_INDEX_SORT_KEY,
  keys,
  PARTITION_KEY,
  prefixes,
  SORT_KEY,
} from '../lambda/table/schema';

export interface PromptTableProps {
  readonly removalPolicy: RemovalPolicy.RETAIN | RemovalPolicy.DESTROY;
}

/** The store operations the API makes; alarms watch exactly these for throttling. */
export const API_TABLE_OPERATIONS = [Operation.GET_ITEM, Operation.QUERY, Operation.UPDATE_ITEM] as const;

/**
 * IAM `dynamodb:LeadingKeys` patterns built from the same key builders the data module uses,
 * so the policy and the code cannot drift apart.
 */
export const LEADING_KEY_PATTERNS = {
  /** API keys and their usage counters (`APIKEY#<sha256>`). */
  apiKeyPartitions: keys.apiKey('*').pk,
  /** Accounts, prompt heads and prompt versions (`ACCOUNT#<id>`). */
  accountPartitions: prefixes.accountPartition('*'),
} as const;

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
    });
    this.table.addGlobalSecondaryIndex({
      indexName: ADMIN_INDEX,
      partitionKey: { name: ADMIN_INDEX_PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: ADMIN_INDEX_SORT_KEY, type: AttributeType.STRING },
      projectionType: ProjectionType.INCLUDE,
      nonKeyAttributes: [...ADMIN_INDEX_ATTRIBUTES],
    });
  }

  /**
   * What an API function may do, and nothing more: read single items (keys, accounts, prompts,
   * usage), query account partitions (lists), and update usage counters. No Scan, no writes of
   * whole items, no batch calls and no index: the admin index is the operator's alone.
   */
  grantApiAccess(grantee: IGrantable): void {
    const tableArn = this.table.tableArn;
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'ReadSingleItems',
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
        resources: [tableArn],
        conditions: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': [LEADING_KEY_PATTERNS.apiKeyPartitions, LEADING_KEY_PATTERNS.accountPartitions],
          },
        },
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'QueryAccountPartitions',
        actions: ['dynamodb:Query'],
        resources: [tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [LEADING_KEY_PATTERNS.accountPartitions] },
        },
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'CountUsage',
        actions: ['dynamodb:UpdateItem'],
        resources: [tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [LEADING_KEY_PATTERNS.apiKeyPartitions] },
        },
      }),
    );
  }
}
