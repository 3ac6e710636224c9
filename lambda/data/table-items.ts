import type { PromptConfig, PromptContent } from '../domain/prompt';

/**
 * What the table holds: one interface per item, as README.md "Data model" lists them. table-schema.ts
 * builds their keys; the API reads them (dynamo-store.ts) and the operator tools write them (admin/store/).
 * Each interface is the item's own attributes: its keys and its `type` tag are WithKeys below.
 */

export interface AccountItem {
  accountId: string;
  name: string;
  /** As written; a reader checks it is a known plan. */
  plan: string;
  createdAt?: string;
  /** Raised by every prompt delete and copied to the account's keys; absent until the first delete. */
  promptsRevision?: number;
}

export interface ApiKeyItem {
  keyId: string;
  accountId: string;
  /** `disabled` can be undone; `revoked` is final. Only `active` keys are admitted. */
  status: 'active' | 'disabled' | 'revoked';
  /** Epoch milliseconds from which the key is refused; absent for a key that never expires. */
  expiresAt?: number;
  /** Prompt ids and `prefix*` entries the key may read; absent for the whole account. */
  scope?: string[];
  /** A copy of the account's plan, kept in step by the writers. */
  plan: string;
  /** The key's own monthly limit, overriding the plan's. */
  monthlyLimit?: number;
  /** The limit in force (own, else the plan's), kept by the writers, so admission reads nothing else. */
  limit: number;
  /** Copied from the account by the writers; absent until a prompt of the account is first deleted. */
  promptsRevision?: number;
  /** What a listing may show of the key: its recognisable prefix and first characters, never the key. */
  displayPrefix?: string;
  createdAt?: string;
  revokedAt?: string;
  /** `used#YYYY-MM` counters, one per month the key was used. */
  [usage: `used#${string}`]: number | undefined;
}

/**
 * A version's content as stored (stored-content.ts reads and writes it). `config` is JSON text: its
 * `schema` and `inputData` are the author's JSON, whose names (`__proto__`, `constructor`) a store map
 * does not keep. Items written before hold it as a map, which reads the same.
 */
export interface StoredContent extends Omit<PromptContent, 'config'> {
  config: string | PromptConfig;
}

export interface PromptHeadItem {
  promptId: string;
  promptName: string;
  deleted: boolean;
  /** A copy of the highest published version, so "latest" is a single read. Absent until one is published. */
  latest?: StoredContent;
  /**
   * versionSortKey(latest.version): lets a publish move `latest` up in one conditional write, never down,
   * however many publishes race. Heads written before it existed lack it.
   */
  latestKey?: string;
  /**
   * label -> version: every label of the prompt, so writers find its label items (and move their copies
   * of `promptName` and `deleted`) without a pass over the account. Written before a label item and
   * removed after it, so it names every label item there is.
   */
  labels?: Record<string, string>;
  /** Raised by every change to `labels`: each change is conditional on it, and label items carry it. */
  labelsRevision?: number;
}

/**
 * One label of one prompt: a copy of the labelled version's content, as the head holds latest, so a read
 * at a label costs what a read of latest costs, and a list at a label is one Query per page.
 */
export interface PromptLabelItem {
  promptId: string;
  label: string;
  /** Copies of the head's, kept in step by the writers: the list at a label reads nothing else. */
  promptName: string;
  deleted: boolean;
  labelled: StoredContent;
  /** The head's labelsRevision this was written under: a slower writer never puts back an older target. */
  labelsRevision: number;
}

export interface PromptVersionItem extends StoredContent {
  promptId: string;
  published: boolean;
}

/** An item as written and read whole: its keys (table-schema.ts), its kind, and its attributes. */
export type WithKeys<T> = T & {
  pk: string;
  sk: string;
  /** `account`, `apiKey`, `prompt`, `promptVersion` or `promptLabel`. */
  type: string;
  /** The admin index's keys: on account and API key items only. */
  gsi1pk?: string;
  gsi1sk?: string;
};
