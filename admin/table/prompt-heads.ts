import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { buildUpdate } from '../../lambda/table/update-expression';
import type { PromptContent } from '../../lambda/domain/prompt';
import { versionSortKey } from '../../lambda/domain/version';
import type { Table } from '../../lambda/table/table';
import { keys } from '../../lambda/table/schema';
import { toStoredContent } from '../../lambda/table/stored-content';

/**
 * What an import changes on a prompt's head, field by field: only what it asks to change, so
 * that a delete, a restore or a publish made since the store was read is not undone. `latest` only ever
 * moves up (see writeHead below): two publishes racing each other both land, the higher one as latest.
 */
export interface HeadWrite {
  readonly accountId: string;
  readonly promptId: string;
  readonly promptName?: string;
  readonly deleted?: boolean;
  readonly latest?: PromptContent;
  /** The latest version the plan was made against, for heads written before `latestKey` existed. */
  readonly seenLatestVersion?: string;
}

/**
 * Writes what an import changes on a head. `latest` is set only if it moves up (or the head predates
 * `latestKey` and still shows what the plan saw); when a racing publish has put a higher version there,
 * the rest of the change is still written.
 */
export async function writeHead(table: Table, head: HeadWrite): Promise<void> {
  // Undefined fields are left out: what the import does not change stays as it is.
  const fields = { type: 'prompt', promptId: head.promptId, promptName: head.promptName, deleted: head.deleted };
  const Key = keys.promptHead(head.accountId, head.promptId);
  const fieldsOnly: Omit<UpdateCommandInput, 'TableName'> = { Key, ...buildUpdate({ set: fields }) };
  if (head.latest === undefined) {
    await table.update('writeHead', fieldsOnly);
    return;
  }
  const latestKey = versionSortKey(head.latest.version);
  const seen = head.seenLatestVersion;
  await table.update(
    'writeHead',
    {
      Key,
      ...buildUpdate({
        set: { ...fields, latest: toStoredContent(head.latest), latestKey },
        condition: (e) => {
          const legacy = seen === undefined ? '' : ` OR attribute_not_exists(${e.name('latestKey')}) AND ${e.name('latest.version')} = ${e.value(seen)}`;
          return `attribute_not_exists(${e.name('latest')}) OR ${e.name('latestKey')} < ${e.value(latestKey)}${legacy}`;
        },
      }),
    },
    // A higher version is latest already: write the rest of the change.
    () => table.update('writeHead', fieldsOnly),
  );
}
