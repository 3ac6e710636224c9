import type { Actor } from '../../lambda/domain/actor';
import type { EventBody } from '../../lambda/domain/events';
import type { Role } from '../../lambda/domain/roles';
import { Operations, type OperationsDependencies } from '../../lambda/operations';
import { type AuditEntry, listAudit } from '../../lambda/table/audit-log';
import type { AccountItem, PromptHeadItem, PromptLabelItem } from '../../lambda/table/item-types';
import { type LabelHistoryEntry, listLabelHistory } from '../../lambda/table/label-history';
import { readEventBody } from '../../lambda/table/outbox';
import { keys, prefixes } from '../../lambda/table/schema';
import { Table } from '../../lambda/table/table';
import type { TransactionWrite } from '../../lambda/table/transaction';
import type { PromptInput } from './fixture-store';
import { Fixtures } from './fixtures';
import { type LocalStore, startLocalStore } from './local-store';

/** An operator through the admin CLI: the actor the fixtures' changes are made as, and the one break-glass is for. */
export const OPERATOR: Actor = { type: 'cli', operator: 'test' };

/** A signed-in person, as the management API names one. */
export const person = (name: string): Actor & { type: 'user' } => ({ type: 'user', userId: `user-${name}`, email: `${name}@example.com` });

type Item = Record<string, unknown>;

/**
 * A table whose next transaction lets another change land first, between the plan's reads and its commit: how a
 * test shows what a plan holds by its transaction's conditions (the change is refused, planned again, and decided
 * on what is there now).
 */
export class RacedTable extends Table {
  private meanwhile: (() => Promise<unknown>) | undefined;

  /** Before the next transaction of this table, `change` is made (through another table: it is not raced itself). */
  beforeNextTransaction(change: () => Promise<unknown>): void {
    this.meanwhile = change;
  }

  override async transact(callName: string, writes: readonly TransactionWrite[], options: { proof?: Record<string, string> } = {}): Promise<void> {
    const meanwhile = this.meanwhile;
    this.meanwhile = undefined;
    if (meanwhile) await meanwhile();
    return super.transact(callName, writes, options);
  }
}

/**
 * The features' rules (lambda/features/) against an in-memory table: dynalite in this process (startLocalStore, in
 * memory on a loopback port), started once per test file; the operations acting as any actor; an account of its
 * own for each test; and what a test reads back to prove a change, or that a refusal changed nothing.
 */
export class FeatureTable {
  private local: LocalStore | undefined;
  private accounts = 0;

  async start(): Promise<void> {
    this.local = await startLocalStore();
  }

  async stop(): Promise<void> {
    await this.local?.close();
  }

  private get store(): LocalStore {
    if (!this.local) throw new Error('the feature table is not started: call featureTable() at the top of the test file');
    return this.local;
  }

  /** The table as the operations and the CLI use it (strongly consistent reads, the real clock). */
  get table(): Table {
    return new Table(this.store.client, this.store.tableName, () => new Date());
  }

  /** A table whose next transaction another change races (RacedTable). */
  racedTable(): RacedTable {
    return new RacedTable(this.store.client, this.store.tableName, () => new Date());
  }

  get fixtures(): Fixtures {
    return new Fixtures(this.store.client, this.store.tableName);
  }

  /** The operations as `actor` (an operator by default), on `table` when given. */
  operations(actor: Actor = OPERATOR, deps: Partial<Omit<OperationsDependencies, 'actor'>> = {}): Operations {
    return new Operations({ table: this.table, ...deps, actor });
  }

  /** A new account for one test (plan `pro`), with these prompts imported (their versions and labels). */
  async account(...prompts: PromptInput[]): Promise<string> {
    this.accounts += 1;
    const accountId = `acct-${this.accounts}`;
    // One import: the account, its prompts, their versions and labels (each label with its history entry).
    await this.fixtures.admin.importAccounts([{ accountId, name: `Account ${accountId}`, plan: 'pro', keys: [], prompts }]);
    return accountId;
  }

  /** A member of the account, with this role, as an operator adds one (unaudited). */
  async member(accountId: string, actor: Actor & { type: 'user' }, role: Role): Promise<void> {
    await this.fixtures.admin.addMember(accountId, { userId: actor.userId, email: actor.email, role });
  }

  /** Approvals on these labels, `required` of them, as the owners set them. */
  async approvals(accountId: string, labels: string[], required = 1): Promise<void> {
    await this.operations().accounts.updateSettings(accountId, { approvals: { labels, required } });
  }

  /**
   * Every item of the account's partition but its audit entries, in key order: the account, prompts, versions,
   * labels, histories, requests, rollouts, events, webhooks. What a refused change must leave exactly as it was
   * (a refusal's one trace is its audit entry).
   */
  async state(accountId: string): Promise<Item[]> {
    const items = await this.table.query<Item>('state', {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': prefixes.accountPartition(accountId) },
      ConsistentRead: true,
    });
    return items.filter((item) => !String(item.sk).startsWith(prefixes.auditEntries));
  }

  /** The account's audit log, newest first. */
  async audit(accountId: string): Promise<AuditEntry[]> {
    return (await listAudit(this.table, accountId, { limit: 100 })).entries;
  }

  /**
   * The account's last `count` audit entries as [action, outcome, reason code], in sorted order: two entries of one
   * millisecond from separate changes sort by their random tails, so which came first is not for a test to say.
   */
  async lastEntries(accountId: string, count: number): Promise<[string, string, string | undefined][]> {
    const entries = (await this.audit(accountId)).slice(0, count);
    return entries.map((entry): [string, string, string | undefined] => [entry.action, entry.outcome, entry.reason?.code]).sort();
  }

  /** One label's history, newest first. */
  async history(accountId: string, promptId: string, label: string): Promise<LabelHistoryEntry[]> {
    return (await listLabelHistory(this.table, accountId, promptId, label)).entries;
  }

  /** The events the account's changes announced, oldest first: each type and its data. */
  async events(accountId: string): Promise<EventBody[]> {
    const items = await this.state(accountId);
    return items.filter((item) => String(item.sk).startsWith(prefixes.events)).map((item) => readEventBody(item));
  }

  /** The account's prompt revision: raised by every change the read API can see. */
  async promptsRevision(accountId: string): Promise<number> {
    const account = await this.table.get<AccountItem>('promptsRevision', keys.account(accountId));
    return Number(account?.promptsRevision ?? 0);
  }

  /** The prompt's labels, label -> version, as its head holds them. */
  async labels(accountId: string, promptId: string): Promise<Record<string, string>> {
    const head = await this.table.get<PromptHeadItem>('labels', keys.promptHead(accountId, promptId));
    return { ...head?.labels };
  }

  /** The label's item: the version the read API serves at it, and the rollout it carries. */
  labelItem(accountId: string, promptId: string, label: string): Promise<PromptLabelItem | undefined> {
    return this.table.get<PromptLabelItem>('labelItem', keys.promptLabel(accountId, label, promptId));
  }

  get<T>(key: Record<string, string>): Promise<T | undefined> {
    return this.table.get<T>('get', key);
  }
}

/** The feature table of one test file: dynalite started before its tests, stopped after them. */
export function featureTable(): FeatureTable {
  const features = new FeatureTable();
  beforeAll(() => features.start(), 30_000);
  afterAll(() => features.stop());
  return features;
}
