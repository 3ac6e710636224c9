import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { toStoredContent } from '../../lambda/data/stored-content';
import { keys } from '../../lambda/data/table-schema';
import { versionSortKey } from '../../lambda/domain/version';
import { batchPut, inBatches } from './batch-io';
import { ConflictError, ImmutableVersionError } from './errors';
import {
  type AccountImport,
  type HeadWrite,
  type ImportMode,
  type ImportSummary,
  type LabelWrite,
  planImport,
  promptRef,
} from './import-plan';
import { keyHashOf } from './items';
import { upsertApiKey } from './keys';
import { setLabel, syncLabelCopies } from './labels';
import { bumpPromptsRevision, catchUpKeys, copyPlanToKeys } from './propagation';
import { loadState } from './state';
import type { AdminTable } from './table';

/**
 * Accounts, keys, prompts and versions, as a seed file or the CLI's import gives them. Everything is
 * checked against the store first; if anything is refused (a published version changed, a revoked key
 * revived, an unknown account without a name and plan, a label on a version that is not published),
 * nothing is written. Writing only what differs
 * from what is stored makes a repeated import a no-op. Usage counters on key items are never touched.
 * In `create-missing` mode (the start-up seed) nothing is refused: only what is missing is written.
 */
export async function importAccounts(
  table: AdminTable,
  imports: readonly AccountImport[],
  options: { dryRun?: boolean; mode?: ImportMode } = {},
): Promise<ImportSummary> {
  const stored = await loadState(table, imports);
  const plan = planImport(imports, stored, table.timestamp(), options.mode);
  const [first, ...others] = plan.conflicts;
  if (first) {
    const message = others.length > 0 ? `${first.message} (and ${others.length} more)` : first.message;
    const ErrorType = first.kind === 'immutable' ? ImmutableVersionError : ConflictError;
    throw new ErrorType(message, plan.conflicts);
  }
  if (!options.dryRun) {
    const { accounts, versions, heads, labels, keys: apiKeys } = plan.writes;
    for (const items of [accounts, versions]) await batchPut(table.client, table.tableName, items);
    await inBatches(heads, (head) => writeHead(table, head));
    // A renamed, deleted or restored prompt's label items carry copies of its name and deleted flag.
    const relabelled = heads.filter(
      (head) =>
        (head.promptName !== undefined || head.deleted !== undefined) &&
        Object.keys(stored.heads.get(promptRef(head.accountId, head.promptId))?.labels ?? {}).length > 0,
    );
    await inBatches(relabelled, (head) => syncLabelCopies(table, head.accountId, head.promptId));
    // One prompt's labels one after another: each change is conditional on the head's label revision.
    await inBatches(groupByPrompt(labels), async (promptLabels) => {
      for (const { accountId, promptId, label, version } of promptLabels) {
        await setLabel(table, accountId, promptId, label, version, { raiseRevision: false });
      }
    });
    for (const accountId of plan.revisedAccounts) await bumpPromptsRevision(table, accountId);
    for (const item of apiKeys) await upsertApiKey(table, item);
    await catchUpKeys(table, apiKeys.map((item) => ({ accountId: String(item.accountId), keyHash: keyHashOf(item) })));
    for (const input of imports) {
      const before = stored.accounts.get(input.accountId);
      if (before && input.plan !== undefined && input.plan !== before.plan) {
        await copyPlanToKeys(table, input.accountId, input.plan);
      }
    }
  }
  return plan.summary;
}

/**
 * Writes what an import changes on a head. `latest` is set only if it moves up (or the head predates
 * `latestKey` and still shows what the plan saw); when a racing publish has put a higher version there,
 * the rest of the change is still written.
 */
async function writeHead(table: AdminTable, head: HeadWrite): Promise<void> {
  const sets: string[] = ['#type = :type', '#promptId = :promptId'];
  const names: Record<string, string> = { '#type': 'type', '#promptId': 'promptId' };
  const values: Record<string, unknown> = { ':type': 'prompt', ':promptId': head.promptId };
  if (head.promptName !== undefined) {
    sets.push('#promptName = :promptName');
    names['#promptName'] = 'promptName';
    values[':promptName'] = head.promptName;
  }
  if (head.deleted !== undefined) {
    sets.push('#deleted = :deleted');
    names['#deleted'] = 'deleted';
    values[':deleted'] = head.deleted;
  }
  const Key = keys.promptHead(head.accountId, head.promptId);
  const fieldsOnly: Omit<UpdateCommandInput, 'TableName'> = {
    Key,
    UpdateExpression: `SET ${sets.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  if (head.latest === undefined) {
    await table.update('writeHead', fieldsOnly);
    return;
  }
  const legacy = head.seenLatestVersion === undefined ? '' : ' OR attribute_not_exists(#latestKey) AND #latest.#version = :seen';
  await table.update(
    'writeHead',
    {
      Key,
      UpdateExpression: `SET ${[...sets, '#latest = :latest', '#latestKey = :latestKey'].join(', ')}`,
      ConditionExpression: `attribute_not_exists(#latest) OR #latestKey < :latestKey${legacy}`,
      ExpressionAttributeNames: { ...names, '#latest': 'latest', '#latestKey': 'latestKey', ...(legacy ? { '#version': 'version' } : {}) },
      ExpressionAttributeValues: {
        ...values,
        ':latest': toStoredContent(head.latest),
        ':latestKey': versionSortKey(head.latest.version),
        ...(legacy ? { ':seen': head.seenLatestVersion } : {}),
      },
    },
    // A higher version is latest already: write the rest of the change.
    () => table.update('writeHead', fieldsOnly),
  );
}

function groupByPrompt(labels: readonly LabelWrite[]): LabelWrite[][] {
  const groups = new Map<string, LabelWrite[]>();
  for (const write of labels) {
    const ref = promptRef(write.accountId, write.promptId);
    groups.set(ref, [...(groups.get(ref) ?? []), write]);
  }
  return [...groups.values()];
}
