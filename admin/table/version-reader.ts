import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getItem } from '../../lambda/table/calls';
import { fromStoredContent } from '../../lambda/table/stored-content';
import type { PromptVersionItem } from '../../lambda/table/item-types';
import { keys } from '../../lambda/table/schema';
import type { PromptContent } from '../../lambda/domain/prompt';

/** A stored version as operators see it: drafts too, which the API never shows. */
export type StoredVersion = PromptContent & { readonly published: boolean };

/**
 * Reads one version of a prompt, published or draft, for `prompts show` and `prompts rollback`, with one
 * consistent GetItem. Versions are written by the operations (lambda/operations/) and by imports.
 */
export class VersionReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async read(accountId: string, promptId: string, version: string): Promise<StoredVersion | undefined> {
    const key = keys.promptVersion(accountId, promptId, version);
    const item = await getItem<PromptVersionItem>(this.client, this.tableName, 'readVersion', key);
    if (!item) return undefined;
    return { ...fromStoredContent(item), published: item.published === true };
  }
}
