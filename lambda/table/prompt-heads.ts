import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { toStoredContent } from './stored-content';
import { keys } from './schema';
import { versionSortKey } from '../domain/version';
import type { HeadWrite } from './import-plan';
import type { AdminTable } from './admin-table';

/**
 * Writes what an import changes on a head. `latest` is set only if it moves up (or the head predates
 * `latestKey` and still shows what the plan saw); when a racing publish has put a higher version there,
 * the rest of the change is still written.
 */
export async function writeHead(table: AdminTable, head: HeadWrite): Promise<void> {
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
