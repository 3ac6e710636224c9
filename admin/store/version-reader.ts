import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { PromptVersionItem } from '../../lambda/data/table-items';
import { callStore } from '../../lambda/data/store-calls';
import { keys } from '../../lambda/data/table-schema';
import type { PromptContent } from '../../lambda/domain/prompt';

/** A stored version as operators see it: drafts too, which the API never shows. */
export interface StoredVersion extends PromptContent {
  readonly published: boolean;
}

/**
 * Reads one version of a prompt, published or draft, for `prompts show` and `prompts rollback`. The admin
 * store writes versions; reading one back for an operator is all this adds, with one consistent GetItem.
 */
export class VersionReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async read(accountId: string, promptId: string, version: string): Promise<StoredVersion | undefined> {
    const result = await callStore('readVersion', () =>
      this.client.send(
        new GetCommand({ TableName: this.tableName, Key: keys.promptVersion(accountId, promptId, version), ConsistentRead: true }),
      ),
    );
    const item = result.Item as PromptVersionItem | undefined;
    if (!item) return undefined;
    return {
      version: item.version,
      systemMessage: item.systemMessage,
      userMessage: item.userMessage,
      config: item.config,
      published: item.published === true,
    };
  }
}
