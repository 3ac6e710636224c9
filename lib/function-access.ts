import { Operation } from 'aws-cdk-lib/aws-dynamodb';
import { adminIndexKeys, keys, prefixes } from '../lambda/table/schema';

/**
 * What each function may do with the table and the user pool: exactly the calls its code makes, and on the
 * partitions its code addresses. A reviewed table: test/stack/function-access.test.ts reads each function's
 * calls from its code and holds this table to them, and the synthesized policies to this table, so a
 * function's role can neither lack a right its code needs nor keep one it no longer uses.
 */

/** `dynamodb:LeadingKeys` patterns, from the same key builders the code uses. */
export const LEADING_KEY_PATTERNS = {
  /** API keys and their usage counters (`APIKEY#<sha256>`). */
  apiKeyPartitions: keys.apiKey('*').pk,
  /** Accounts and all they hold: prompts, versions, labels, members, the audit log (`ACCOUNT#<id>`). */
  accountPartitions: prefixes.accountPartition('*'),
  /** On the admin index: an account's keys (`ACCOUNT#<id>`). */
  keysOfAccount: adminIndexKeys.keysOf('*'),
  /** On the admin index: a person's memberships (`USER#<sub>`). */
  membershipsOfUser: adminIndexKeys.membershipsOf('*'),
  /** On the admin index: every active rollout of every account (`ROLLOUTS`), for the rollout automation. */
  allRollouts: adminIndexKeys.allRollouts,
} as const;

export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:Query'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:ConditionCheckItem';

/**
 * A transaction's actions, each of which IAM checks on its own: the item writes, and the ConditionCheck of an item a
 * change holds without writing it (lambda/operations/commit.ts: the account's settings a change was decided on).
 */
const TRANSACTION_ACTIONS: readonly TableAction[] = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'];

export type UserPoolAction = 'cognito-idp:ListUsers' | 'cognito-idp:AdminGetUser' | 'cognito-idp:AdminCreateUser';

/** One statement of a function's policy on the table, or on its admin index (Query only). */
export interface TableGrant {
  readonly sid: string;
  readonly on: 'table' | 'index';
  readonly actions: readonly TableAction[];
  /** The partition keys (the index's, for `index`) the actions may touch: a `ForAllValues:StringLike` condition. */
  readonly partitions: readonly string[];
}

/** On the stack's EventBridge bus (lib/event-delivery.ts), and no other bus. */
export type BusAction = 'events:PutEvents';
/** On the webhook delivery queue: sending jobs to it, or hiding a failed one until its next attempt. */
export type DeliveryQueueAction = 'sqs:SendMessage' | 'sqs:ChangeMessageVisibility';
/** On the KMS key that seals webhook secrets: who creates or rotates them encrypts, who delivers decrypts. */
export type WebhookKeyAction = 'kms:Encrypt' | 'kms:Decrypt';

export interface FunctionAccess {
  readonly table: readonly TableGrant[];
  /** On the stack's user pool; only the function that adds people has any. */
  readonly userPool: readonly UserPoolAction[];
  /** On the stack's event bus: the dispatcher alone. */
  readonly bus?: readonly BusAction[];
  /** On the delivery queue (besides what its event source mapping needs to read it). */
  readonly deliveryQueue?: readonly DeliveryQueueAction[];
  /** On the webhook secrets' key; a function with any gets WEBHOOK_KEY_ID. */
  readonly webhookKey?: readonly WebhookKeyAction[];
}

const { apiKeyPartitions, accountPartitions, keysOfAccount, membershipsOfUser, allRollouts } = LEADING_KEY_PATTERNS;

/**
 * The read API's three functions (the fallback dispatches to both handlers): single items (keys, accounts,
 * prompts), queries of an account's partition (lists, labels), and the usage counter on the key's item.
 * No write of whole items, no delete, no index: the admin index is the operators' and the dashboard's.
 */
const READ_API: FunctionAccess = {
  table: [
    { sid: 'ReadSingleItems', on: 'table', actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], partitions: [apiKeyPartitions, accountPartitions] },
    { sid: 'QueryAccountPartitions', on: 'table', actions: ['dynamodb:Query'], partitions: [accountPartitions] },
    { sid: 'CountUsage', on: 'table', actions: ['dynamodb:UpdateItem'], partitions: [apiKeyPartitions] },
  ],
  userPool: [],
};

/**
 * The rollout automation's two functions (lib/rollout-automation.ts): the active rollouts, found on the index and
 * read whole, and the rollout operations' transactions on the account's items; a share that changes what the read
 * API answers copies the new prompt revision to the account's keys, found on the index.
 */
const ROLLOUT_AUTOMATION: FunctionAccess = {
  table: [
    {
      sid: 'RolloutItems',
      on: 'table',
      actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', ...TRANSACTION_ACTIONS],
      partitions: [accountPartitions, apiKeyPartitions],
    },
    { sid: 'ActiveRollouts', on: 'index', actions: ['dynamodb:Query'], partitions: [allRollouts] },
    { sid: 'KeysOfAccount', on: 'index', actions: ['dynamodb:Query'], partitions: [keysOfAccount] },
  ],
  userPool: [],
};

/** Keyed by function construct id: lib/prompt-service-stack.ts FUNCTION_IDS, lambda/management-api/routes.ts and lib/rollout-automation.ts. */
export const FUNCTION_ACCESS: Readonly<Record<string, FunctionAccess>> = {
  GetPrompt: READ_API,
  ListPrompts: READ_API,
  Fallback: READ_API,
  // MCP's prompts/list, prompts/get and tools/call read what GET does; initialize and ping check the key alone.
  Mcp: READ_API,
  // The signed-in person's accounts (their memberships on the index, then the accounts) and an account's settings.
  // Every change is one transaction of item writes and checks (Put, Update, Delete, ConditionCheck: IAM has no action
  // of its own for it), and the code that commits one copies a new prompt revision to the account's keys, found on the index.
  ManageAccounts: {
    table: [
      {
        sid: 'AccountItems',
        on: 'table',
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', ...TRANSACTION_ACTIONS],
        partitions: [accountPartitions, apiKeyPartitions],
      },
      { sid: 'MembershipsOfUser', on: 'index', actions: ['dynamodb:Query'], partitions: [membershipsOfUser] },
      { sid: 'KeysOfAccount', on: 'index', actions: ['dynamodb:Query'], partitions: [keysOfAccount] },
    ],
    userPool: [],
  },
  // Prompts, drafts, labels with their history, change requests; a publish or a label move brings the account's keys up
  // to the new prompts revision. A label move holds the account's approvals, a no-op move the prompt's labels, and the
  // approval that applies a request each counted approver's membership, with a ConditionCheck.
  ManagePrompts: {
    table: [
      {
        sid: 'PromptItems',
        on: 'table',
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', ...TRANSACTION_ACTIONS],
        partitions: [accountPartitions, apiKeyPartitions],
      },
      { sid: 'KeysOfAccount', on: 'index', actions: ['dynamodb:Query'], partitions: [keysOfAccount] },
    ],
    userPool: [],
  },
  // Keys: made, changed, rotated and revoked on their own items, found through the index.
  ManageKeys: {
    table: [
      {
        sid: 'KeyItems',
        on: 'table',
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', ...TRANSACTION_ACTIONS],
        partitions: [accountPartitions, apiKeyPartitions],
      },
      { sid: 'KeysOfAccount', on: 'index', actions: ['dynamodb:Query'], partitions: [keysOfAccount] },
    ],
    userPool: [],
  },
  // Members and roles; a new member is found in the pool by email, or created there (Cognito emails the invitation).
  // The code that commits a change may copy a new prompt revision to the keys (as ManageAccounts says).
  ManageMembers: {
    table: [
      {
        sid: 'MemberItems',
        on: 'table',
        actions: ['dynamodb:GetItem', 'dynamodb:Query', ...TRANSACTION_ACTIONS],
        partitions: [accountPartitions, apiKeyPartitions],
      },
      { sid: 'KeysOfAccount', on: 'index', actions: ['dynamodb:Query'], partitions: [keysOfAccount] },
    ],
    userPool: ['cognito-idp:ListUsers', 'cognito-idp:AdminCreateUser'],
  },
  // Usage and the audit log: reads only, so a refused request is not recorded by it (no route of it changes anything).
  ManageActivity: {
    table: [
      {
        sid: 'ReadActivity',
        on: 'table',
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
        partitions: [accountPartitions, apiKeyPartitions],
      },
      { sid: 'KeysOfAccount', on: 'index', actions: ['dynamodb:Query'], partitions: [keysOfAccount] },
    ],
    userPool: [],
  },
  // Webhooks on their items in the account's partition, counted on the account item, listed with their deliveries; a
  // test writes its event there too. The code that commits a change may copy a new prompt revision to the keys. A new
  // or rotated secret is sealed with the webhook key: encrypt only, it never opens one.
  ManageWebhooks: {
    table: [
      {
        sid: 'WebhookItems',
        on: 'table',
        actions: ['dynamodb:GetItem', 'dynamodb:Query', ...TRANSACTION_ACTIONS],
        partitions: [accountPartitions, apiKeyPartitions],
      },
      { sid: 'KeysOfAccount', on: 'index', actions: ['dynamodb:Query'], partitions: [keysOfAccount] },
    ],
    userPool: [],
    webhookKey: ['kms:Encrypt'],
  },
  RolloutSteps: ROLLOUT_AUTOMATION,
  GuardAlarm: ROLLOUT_AUTOMATION,
  // Events and webhooks (lib/event-delivery.ts). The dispatcher reads an account's webhooks, publishes on the stack's
  // bus and queues delivery jobs; its stream's reads and on-failure queue are the event source mapping's own rights.
  EventDispatcher: {
    table: [{ sid: 'ListWebhooks', on: 'table', actions: ['dynamodb:Query'], partitions: [accountPartitions] }],
    userPool: [],
    bus: ['events:PutEvents'],
    deliveryQueue: ['sqs:SendMessage'],
  },
  // A delivery reads its webhook again, claims the attempt and logs it in the webhook's deliveries (conditional puts
  // and reads of the claim), unseals the signing secrets (decrypt only), queues the next attempt as a message of its
  // own, and hides a message until it is due or can be processed.
  WebhookDelivery: {
    table: [{ sid: 'WebhookDeliveries', on: 'table', actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], partitions: [accountPartitions] }],
    userPool: [],
    deliveryQueue: ['sqs:ChangeMessageVisibility', 'sqs:SendMessage'],
    webhookKey: ['kms:Decrypt'],
  },
};

/** A function's reviewed access; a function without one stops the synth instead of deploying with none. */
export function accessOf(functionId: string): FunctionAccess {
  const access = Object.hasOwn(FUNCTION_ACCESS, functionId) ? FUNCTION_ACCESS[functionId] : undefined;
  if (!access) throw new Error(`no reviewed table and user pool access for function ${functionId}: add it to lib/function-access.ts`);
  return access;
}

/** The table operations these functions make, as CloudWatch names them: what the throttling alarm watches. */
export function tableOperationsOf(accesses: readonly FunctionAccess[]): Operation[] {
  const actions = new Set(accesses.flatMap((access) => access.table.flatMap((grant) => grant.actions)));
  const operations = Object.values(Operation).filter((operation) => actions.has(`dynamodb:${operation}` as TableAction));
  // IAM has no action for a transaction, but CloudWatch counts its throttles under TransactWriteItems: a function
  // granted a transaction's ConditionCheck makes transactions, and every change is one.
  return actions.has('dynamodb:ConditionCheckItem') ? [...operations, Operation.TRANSACT_WRITE_ITEMS] : operations;
}
