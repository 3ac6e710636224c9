import { keys } from '../../lambda/table/schema';
import { batchPut, inBatches } from '../../lambda/table/batch-io';
import { ConflictError } from '../../lambda/table/errors';
import { type AccountImport, type ImportMode, type ImportSummary, type LabelWrite, planImport, promptRef } from './import-plan';
import { keyHashOf } from '../../lambda/table/item-builders';
import { upsertApiKey } from '../../lambda/features/keys/keys';
import { writeHead } from './prompt-heads';
import { syncLabelCopies } from '../../lambda/features/labels/labels';
import { bumpPromptsRevision, catchUpKeys, copyPlanToKeys } from '../../lambda/table/propagation';
import { loadState } from './state';
import type { Table } from '../../lambda/table/table';
import { ImmutableVersionError } from '../../lambda/features/errors';
import { setLabel } from '../../lambda/features/labels/operations';

/**
 * Accounts, keys, prompts and versions, as a seed file or the CLI's import gives them. Everything is
 * checked against the store first; if anything is refused (a published version changed, a revoked key
 * revived, an unknown account without a name and plan, a label on a version that is not published),
 * nothing is written. Writing only what differs
 * from what is stored makes a repeated import a no-op. Usage counters on key items are never touched.
 * In `create-missing` mode (the start-up seed) nothing is refused: only what is missing is written.
 */
export async function importAccounts(
  table: Table,
  imports: readonly AccountImport[],
  options: { dryRun?: boolean; mode?: ImportMode; by?: string } = {},
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
    // An existing account is updated field by field: replacing it would drop its prompt revision and
    // the keys registered on it, and a later raise would then fall below what its keys already carry.
    const existing = accounts.filter((item) => stored.accounts.has(item.accountId));
    await batchPut(
      table.client,
      table.tableName,
      accounts.filter((item) => !stored.accounts.has(item.accountId)),
    );
    for (const { accountId, name, plan } of existing) await table.setOnExisting('importAccount', keys.account(accountId), { name, plan });
    await batchPut(table.client, table.tableName, versions);
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
        // The label's history names the import (by its operator, when the CLI gave one).
        await setLabel(table, accountId, promptId, label, version, { raiseRevision: false, cause: { by: options.by ?? 'import', reason: 'import' } });
      }
    });
    for (const accountId of plan.revisedAccounts) await bumpPromptsRevision(table, accountId);
    for (const item of apiKeys) await upsertApiKey(table, item);
    await catchUpKeys(
      table,
      apiKeys.map((item) => ({ accountId: String(item.accountId), keyHash: keyHashOf(item) })),
    );
    for (const input of imports) {
      const before = stored.accounts.get(input.accountId);
      if (before && input.plan !== undefined && input.plan !== before.plan) {
        await copyPlanToKeys(table, input.accountId, input.plan);
      }
    }
  }
  return plan.summary;
}

function groupByPrompt(labels: readonly LabelWrite[]): LabelWrite[][] {
  const groups = new Map<string, LabelWrite[]>();
  for (const write of labels) {
    const ref = promptRef(write.accountId, write.promptId);
    groups.set(ref, [...(groups.get(ref) ?? []), write]);
  }
  return [...groups.values()];
}
