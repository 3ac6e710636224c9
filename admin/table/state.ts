import type { AccountItem, ApiKeyItem, PromptHeadItem, PromptLabelItem, PromptVersionItem, WithKeys } from '../../lambda/table/item-types';
import { keys, prefixes } from '../../lambda/table/schema';
import { batchGet } from '../../lambda/table/batch-io';
import { type AccountImport, labelRef, promptRef, type StoredState } from './import-plan';
import { keyHashOf, toAccount, toApiKey } from '../../lambda/table/item-builders';
import type { Table } from '../../lambda/table/table';

/** Above this many prompts of one account, one pass over the account's partition beats a read per prompt. */
const TARGETED_READ_LIMIT = 10;

/** Reads what an import touches, and only that: the accounts, keys, prompts and labels it names. */
export async function loadState(table: Table, imports: readonly AccountImport[]): Promise<StoredState> {
  const labelKeys = imports.flatMap((input) =>
    input.prompts.flatMap((prompt) => Object.keys(prompt.labels ?? {}).map((label) => keys.promptLabel(input.accountId, label, prompt.promptId))),
  );
  const [accountItems, keyItems, prompts, labelItems] = await Promise.all([
    batchGet<AccountItem>(table.client, table.tableName, unique(imports.map((input) => input.accountId)).map(keys.account)),
    batchGet<WithKeys<ApiKeyItem>>(table.client, table.tableName, unique(imports.flatMap((input) => input.keys.map((key) => key.keyHash))).map(keys.apiKey)),
    Promise.all(
      imports.map((input) =>
        loadPrompts(
          table,
          input.accountId,
          input.prompts.map((p) => p.promptId),
        ),
      ),
    ),
    batchGet<WithKeys<PromptLabelItem>>(table.client, table.tableName, labelKeys),
  ]);
  const heads = new Map<string, PromptHeadItem>();
  const versions = new Map<string, Map<string, PromptVersionItem>>();
  for (const loaded of prompts) {
    for (const [ref, head] of loaded.heads) heads.set(ref, head);
    for (const [ref, list] of loaded.versions) versions.set(ref, list);
  }
  return {
    accounts: new Map(accountItems.map((item) => [String(item.accountId), toAccount(item)])),
    keys: new Map(keyItems.map((item) => [keyHashOf(item), toApiKey(item)])),
    heads,
    versions,
    labels: new Map(labelItems.map((item) => [labelRef(accountOf(item), item.promptId, item.label), item])),
  };
}

const ACCOUNT_PK_PREFIX = keys.account('').pk;
const accountOf = (item: { pk: string }) => item.pk.slice(ACCOUNT_PK_PREFIX.length);

async function loadPrompts(table: Table, accountId: string, promptIds: readonly string[]) {
  const wanted = new Set(promptIds);
  const heads = new Map<string, PromptHeadItem>();
  const versions = new Map<string, Map<string, PromptVersionItem>>();
  const addVersion = (version: PromptVersionItem) => {
    const ref = promptRef(accountId, version.promptId);
    const list = versions.get(ref) ?? new Map<string, PromptVersionItem>();
    list.set(version.version, version);
    versions.set(ref, list);
  };
  if (wanted.size > TARGETED_READ_LIMIT) {
    const [allHeads, allVersions] = await Promise.all([
      table.queryPartition<PromptHeadItem>('loadPrompts', accountId, prefixes.promptHeads, { ConsistentRead: true }),
      table.queryPartition<PromptVersionItem>('loadPrompts', accountId, prefixes.promptVersions, {
        ConsistentRead: true,
      }),
    ]);
    for (const head of allHeads) if (wanted.has(head.promptId)) heads.set(promptRef(accountId, head.promptId), head);
    for (const version of allVersions) if (wanted.has(version.promptId)) addVersion(version);
  } else {
    await Promise.all(
      [...wanted].map(async (promptId) => {
        const [head, stored] = await Promise.all([
          table.get<PromptHeadItem>('loadPrompts', keys.promptHead(accountId, promptId)),
          table.queryPartition<PromptVersionItem>('loadPrompts', accountId, prefixes.versionsOf(promptId), {
            ConsistentRead: true,
          }),
        ]);
        if (head) heads.set(promptRef(accountId, promptId), head);
        stored.forEach(addVersion);
      }),
    );
  }
  return { heads, versions };
}

const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];
