import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hashApiKey } from '../../lambda/domain/api-key';
import type { ApiKeyItem, LabelRollout, PromptLabelItem, PromptVersionItem, StoredContent } from '../../lambda/table/item-types';
import { bumpPromptsRevision } from '../../lambda/table/propagation';
import { keys, servedAttribute } from '../../lambda/table/schema';
import { Table } from '../../lambda/table/table';
import type { LocalStore } from './local-store';

/**
 * A rollout as the read path sees one (docs/rollouts.md "Serving"), written straight into the embedded store: the
 * label item's `rollout` (its id, its share and a copy of `to`) and the account's prompt revision raised and copied
 * to its keys, as the writers do (lambda/table/propagation.ts). The one place the read path's tests make rollouts:
 * once the management side writes them (the rollout item, its audit and history entries), this goes through it.
 */
export async function startRollout(
  store: Pick<LocalStore, 'client' | 'tableName'>,
  where: { accountId: string; promptId: string; label: string },
  rollout: { rolloutId: string; percent: number; to: string },
): Promise<void> {
  const { accountId, promptId } = where;
  const version = await store.client.send(new GetCommand({ TableName: store.tableName, Key: keys.promptVersion(accountId, promptId, rollout.to) }));
  const item = version.Item as PromptVersionItem | undefined;
  if (!item?.published) throw new Error(`startRollout: ${promptId} ${rollout.to} is not a published version`);
  const to: StoredContent = { version: item.version, systemMessage: item.systemMessage, userMessage: item.userMessage, config: item.config };
  const labelRollout: LabelRollout = { rolloutId: rollout.rolloutId, percent: rollout.percent, to };
  await setLabelRollout(store, where, labelRollout);
}

/** The rollout's share changed (as PATCH .../rollout does), or the rollout ended (undefined), the revision raised. */
export async function setLabelRollout(
  store: Pick<LocalStore, 'client' | 'tableName'>,
  { accountId, promptId, label }: { accountId: string; promptId: string; label: string },
  rollout: LabelRollout | undefined,
): Promise<void> {
  await store.client.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: keys.promptLabel(accountId, label, promptId),
      ...(rollout
        ? { UpdateExpression: 'SET #rollout = :rollout', ExpressionAttributeValues: { ':rollout': rollout } }
        : { UpdateExpression: 'REMOVE #rollout' }),
      ExpressionAttributeNames: { '#rollout': 'rollout', '#pk': 'pk' },
      ConditionExpression: 'attribute_exists(#pk)',
    }),
  );
  await bumpPromptsRevision(new Table(store.client, store.tableName, () => new Date()), accountId);
}

/** The rollout's share changed, as PATCH .../rollout changes it. */
export async function changeRolloutShare(
  store: Pick<LocalStore, 'client' | 'tableName'>,
  where: { accountId: string; promptId: string; label: string },
  percent: number,
): Promise<void> {
  const { Item } = await store.client.send(
    new GetCommand({ TableName: store.tableName, Key: keys.promptLabel(where.accountId, where.label, where.promptId), ConsistentRead: true }),
  );
  const rollout = (Item as PromptLabelItem | undefined)?.rollout;
  if (!rollout) throw new Error(`changeRolloutShare: ${where.promptId} has no rollout at ${where.label}`);
  await setLabelRollout(store, where, { ...rollout, percent });
}

/** A rollout's served counts on the given keys, summed: what the management API reports as `served`. */
export async function servedCounts(
  store: Pick<LocalStore, 'client' | 'tableName'>,
  rolloutId: string,
  apiKeys: readonly string[],
): Promise<{ from: number; to: number }> {
  const counts = { from: 0, to: 0 };
  for (const apiKey of apiKeys) {
    const { Item } = await store.client.send(new GetCommand({ TableName: store.tableName, Key: keys.apiKey(hashApiKey(apiKey)), ConsistentRead: true }));
    const key = Item as ApiKeyItem | undefined;
    counts.from += Number(key?.[servedAttribute(rolloutId, 'from')] ?? 0);
    counts.to += Number(key?.[servedAttribute(rolloutId, 'to')] ?? 0);
  }
  return counts;
}
