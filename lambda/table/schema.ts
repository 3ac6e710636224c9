import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { versionSortKey } from '../domain/version';

/**
 * The single table's key design. Every pk/sk the service reads or writes is built here;
 * docs/data-model.md documents the same patterns.
 */
export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';
/** Keys per account, the list of accounts, a user's memberships. The read API never queries it. */
export const ADMIN_INDEX = 'gsi1';
export const ADMIN_INDEX_PARTITION_KEY = 'gsi1pk';
export const ADMIN_INDEX_SORT_KEY = 'gsi1sk';
/**
 * What the admin index copies of its items: what operators list, and not the usage counters, so that
 * counting a request (which changes only a counter) never costs a write to the index as well.
 */
export const ADMIN_INDEX_ATTRIBUTES = [
  'type',
  'accountId',
  'name',
  'plan',
  'keyId',
  'status',
  'monthlyLimit',
  'limit',
  'displayPrefix',
  'createdAt',
  'revokedAt',
];

export const keys = {
  account: (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' }),
  apiKey: (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  promptHead: (accountId: string, promptId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `PROMPT#${promptId}` }),
  promptVersion: (accountId: string, promptId: string, version: string) => ({
    pk: `ACCOUNT#${accountId}`,
    sk: `VERSION#${promptId}#${versionSortKey(version)}`,
  }),
  member: (accountId: string, userId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `MEMBER#${userId}` }),
  /** `sortKey` is what auditSortKey built: the entry's time, then a random tail. */
  auditEntry: (accountId: string, sortKey: string) => ({ pk: `ACCOUNT#${accountId}`, sk: sortKey }),
  /** Grouped by label first, so one Query lists every prompt at a label, in promptId order. */
  promptLabel: (accountId: string, label: string, promptId: string) => ({
    pk: `ACCOUNT#${accountId}`,
    sk: `LABEL#${label}#${promptId}`,
  }),
  /** `sortKey` is what labelHistorySortKey built: the prompt, the label, the move's time, a random tail. */
  labelHistory: (accountId: string, sortKey: string) => ({ pk: `ACCOUNT#${accountId}`, sk: sortKey }),
  /** A change request; its id starts with its time, so the account's requests sort newest last. */
  changeRequest: (accountId: string, requestId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `REQUEST#${requestId}` }),
  /** The one open request of a prompt's label, while there is one: its id and where it would move the label. */
  openChangeRequest: (accountId: string, promptId: string, label: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `OPENREQ#${promptId}#${label}` }),
  /** The active rollout of a prompt's label, while there is one (one per label: written `attribute_not_exists`). */
  rollout: (accountId: string, promptId: string, label: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `ROLLOUT#${promptId}#${label}` }),
  /** An event in the outbox; its id starts with its time, so the account's events sort oldest first. */
  event: (accountId: string, eventId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `EVENT#${eventId}` }),
  webhook: (accountId: string, webhookId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `WEBHOOK#${webhookId}` }),
  /** `sortKey` is what deliverySortKey built: the webhook, the attempt's time, a random tail. */
  delivery: (accountId: string, sortKey: string) => ({ pk: `ACCOUNT#${accountId}`, sk: sortKey }),
  /** One attempt of one event's delivery to one webhook, claimed before it is sent (delivery-claims.ts). */
  deliveryClaim: (accountId: string, webhookId: string, eventId: string, attempt: number) => ({
    pk: `ACCOUNT#${accountId}`,
    sk: `ATTEMPT#${webhookId}#${eventId}#${attempt}`,
  }),
} as const;

/**
 * The items of runs on models (docs/runs.md), apart from `keys` and `prefixes`: only the functions that run models
 * and read runs name them, and the read API's bundles, which hold `keys` whole, do not grow by them.
 */
export const runKeys = {
  /** A run of a prompt on a model; its id starts with its time, so the account's runs sort by time. */
  run: (accountId: string, runId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `RUN#${runId}` }),
  /** The account's model tokens in one UTC month (`YYYY-MM`): counted, held for calls under way, and per day. */
  modelTokens: (accountId: string, month: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `MODELTOKENS#${month}` }),
  runsPrefix: 'RUN#',
} as const;

/** A webhook's deliveries sort by time under its own prefix (a webhook id has no `#`). */
export const deliverySortKey = (webhookId: string, at: string, tail: string): string => `DELIVERY#${webhookId}#${at}#${tail}`;

/**
 * The table's TTL attribute (epoch seconds): events and deliveries are kept 30 days. Not `expiresAt`, which a key
 * item holds in milliseconds for its own expiry.
 */
export const TTL_ATTRIBUTE = 'ttl';

/** Audit entries sort by time within the account's partition; the random tail tells apart entries of one millisecond. */
export const auditSortKey = (at: string, tail: string): string => `AUDIT#${at}#${tail}`;
/** What auditSortKey builds from an ISO instant and 8 hex digits, and nothing else. */
export const AUDIT_SORT_KEY_PATTERN = /^AUDIT#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[0-9a-f]{8}$/;

/**
 * A label's history sorts by prompt, then label, then time. Neither a prompt id (`[A-Za-z0-9_.-]`) nor a label
 * (`[a-z0-9_-]`) has a `#`, so the prefix `LABELHIST#<promptId>#<label>#` holds that label's entries and no
 * other's (`prod` never reaches `prod-2`'s, nor `welcome` `welcome-2`'s).
 */
export const labelHistorySortKey = (promptId: string, label: string, at: string, tail: string): string => `LABELHIST#${promptId}#${label}#${at}#${tail}`;
/** What labelHistorySortKey builds, and nothing else. */
export const LABEL_HISTORY_SORT_KEY_PATTERN = /^LABELHIST#[A-Za-z0-9_.-]{1,128}#[a-z][a-z0-9_-]{0,31}#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[0-9a-f]{8}$/;

/**
 * A key's usage in one UTC month is a counter on the key's own item: one conditional update can then
 * check that the key is active and under its limit, and count the request, all at once.
 */
export const usageAttribute = (month: string): string => `used#${month}`;

/**
 * The reads a key was answered with one side of a rollout: counters on the key's own item, so the quota's
 * one write counts them too (docs/rollouts.md "Served counts"). A rollout's counts are the sum over its account's keys.
 */
export const servedAttribute = (rolloutId: string, side: 'from' | 'to'): `served#${string}` => `served#${rolloutId}#${side}`;

/**
 * An end of a rollout holding its counters on a key while it reads and freezes them: the instant (epoch ms, wall
 * clock) until which a read counts no side of that rollout on the key, with a random fraction naming the end that
 * set it (docs/rollouts.md "Served counts").
 */
export const holdAttribute = (rolloutId: string): `hold#${string}` => `hold#${rolloutId}`;

export const prefixes = {
  accountPartition: (accountId: string) => `ACCOUNT#${accountId}`,
  promptHeads: 'PROMPT#',
  promptVersions: 'VERSION#',
  versionsOf: (promptId: string) => `VERSION#${promptId}#`,
  members: 'MEMBER#',
  auditEntries: 'AUDIT#',
  /** Label names have no `#`, so `LABEL#prod#` never matches the items of `prod-2`. */
  labelled: (label: string) => `LABEL#${label}#`,
  /** One label's history (labelHistorySortKey). */
  labelHistoryOf: (promptId: string, label: string) => `LABELHIST#${promptId}#${label}#`,
  changeRequests: 'REQUEST#',
  openChangeRequests: 'OPENREQ#',
  rollouts: 'ROLLOUT#',
  events: 'EVENT#',
  webhooks: 'WEBHOOK#',
  deliveriesOf: (webhookId: string) => `DELIVERY#${webhookId}#`,
} as const;

export const adminIndexKeys = {
  account: (accountId: string) => ({ gsi1pk: 'ACCOUNTS', gsi1sk: `ACCOUNT#${accountId}` }),
  apiKey: (accountId: string, keyId: string) => ({ gsi1pk: `ACCOUNT#${accountId}`, gsi1sk: `APIKEY#${keyId}` }),
  allAccounts: 'ACCOUNTS',
  keysOf: (accountId: string) => `ACCOUNT#${accountId}`,
  apiKeyPrefix: 'APIKEY#',
  /** A membership, indexed under its user: `GET /api/me` lists a user's accounts from here. */
  member: (userId: string, accountId: string) => ({ gsi1pk: `USER#${userId}`, gsi1sk: `MEMBER#${accountId}` }),
  membershipsOf: (userId: string) => `USER#${userId}`,
  memberPrefix: 'MEMBER#',
  /**
   * Every active rollout of every account, for the deployed step and alarm functions (which then read each item
   * consistently): the index copies only the keys and ADMIN_INDEX_ATTRIBUTES.
   */
  rollout: (accountId: string, promptId: string, label: string) => ({ gsi1pk: 'ROLLOUTS', gsi1sk: `${accountId}#${promptId}#${label}` }),
  allRollouts: 'ROLLOUTS',
} as const;

/** For local stores and tests; the CDK stack declares the same keys and index. */
export function createTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: PARTITION_KEY, AttributeType: 'S' },
      { AttributeName: SORT_KEY, AttributeType: 'S' },
      { AttributeName: ADMIN_INDEX_PARTITION_KEY, AttributeType: 'S' },
      { AttributeName: ADMIN_INDEX_SORT_KEY, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
      { AttributeName: SORT_KEY, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: ADMIN_INDEX,
        KeySchema: [
          { AttributeName: ADMIN_INDEX_PARTITION_KEY, KeyType: 'HASH' },
          { AttributeName: ADMIN_INDEX_SORT_KEY, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...ADMIN_INDEX_ATTRIBUTES] },
      },
    ],
  };
}
