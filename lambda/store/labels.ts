import type { PromptVersionItem } from '../data/table-items';
import { keys } from '../data/table-schema';
import { ConflictError, NotFoundError } from './errors';
import { requireHead } from './prompt-authoring';
import type { AdminTable } from './table';

/**
 * Labels (`production`, `staging`, ...) name a published version of a prompt: a map on the prompt's
 * head, `labels: {name: version}`. The smallest set the management API needs (set or move, remove);
 * the read API's `?label=` is not here.
 */

/** Points the label at a published version; says where it pointed before, if anywhere. */
export async function setLabel(
  table: AdminTable,
  accountId: string,
  promptId: string,
  label: string,
  version: string,
): Promise<{ before: string | null }> {
  const head = await requireHead(table, accountId, promptId);
  const stored = await table.get<PromptVersionItem>('setLabel', keys.promptVersion(accountId, promptId, version));
  if (!stored) throw new NotFoundError(`prompt ${promptId} has no version ${version}`);
  if (!stored.published) throw new ConflictError(`version ${version} of prompt ${promptId} is a draft: only a published version can be labelled`);
  const key = keys.promptHead(accountId, promptId);
  const names = { '#labels': 'labels', '#label': label };
  // The map is created by the first label; after that, each label is set inside it.
  const setInMap = () =>
    table.update(
      'setLabel',
      {
        Key: key,
        UpdateExpression: 'SET #labels.#label = :version',
        ConditionExpression: 'attribute_exists(#labels)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':version': version },
      },
      () => false as const,
    );
  if ((await setInMap()) === false) {
    await table.update(
      'setLabel',
      {
        Key: key,
        UpdateExpression: 'SET #labels = :labels',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#labels)',
        ExpressionAttributeNames: { '#labels': 'labels' },
        ExpressionAttributeValues: { ':labels': { [label]: version } },
      },
      // Another label created the map meanwhile.
      async () => {
        await setInMap();
      },
    );
  }
  return { before: head.labels?.[label] ?? null };
}

export async function removeLabel(table: AdminTable, accountId: string, promptId: string, label: string): Promise<{ before: string }> {
  const head = await requireHead(table, accountId, promptId);
  const before = head.labels?.[label];
  if (before === undefined) throw new NotFoundError(`prompt ${promptId} has no label ${label}`);
  await table.update(
    'removeLabel',
    {
      Key: keys.promptHead(accountId, promptId),
      UpdateExpression: 'REMOVE #labels.#label',
      ConditionExpression: 'attribute_exists(#labels.#label)',
      ExpressionAttributeNames: { '#labels': 'labels', '#label': label },
    },
    () => {
      throw new NotFoundError(`prompt ${promptId} has no label ${label}`);
    },
  );
  return { before };
}

