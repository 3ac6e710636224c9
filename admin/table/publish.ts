import { fromStoredContent } from '../../lambda/table/stored-content';
import type { PromptHeadItem, PromptVersionItem } from '../../lambda/table/item-types';
import { keys } from '../../lambda/table/schema';
import type { PromptContent } from '../../lambda/domain/prompt';
import { requireAccount } from '../../lambda/table/accounts';
import { ConflictError, deletedPromptMessage, NotFoundError } from '../../lambda/table/errors';
import type { AdminTable } from '../../lambda/table/admin-table';
import { importAccounts } from './imports';

export interface PublishRequest {
  promptId: string;
  version: string;
  /** The version's content; without it, an existing draft of that version is published. */
  content?: Omit<PromptContent, 'version'>;
  /** Needed when the prompt does not exist yet; renames it otherwise. */
  promptName?: string;
}

/**
 * Publishes one version, as a one-version import; refused for a deleted prompt (restorePrompt brings it
 * back). Publishes racing each other all land: the head's `latest` is written conditionally and only
 * ever moves up.
 */
export async function publishVersion(
  table: AdminTable,
  accountId: string,
  request: PublishRequest,
): Promise<'published' | 'already-published'> {
  await requireAccount(table, accountId);
  const head = await table.get<PromptHeadItem>('publishVersion', keys.promptHead(accountId, request.promptId));
  if (head?.deleted === true) throw new ConflictError(deletedPromptMessage(accountId, request.promptId));
  let content = request.content;
  if (!content) {
    const key = keys.promptVersion(accountId, request.promptId, request.version);
    const stored = await table.get<PromptVersionItem>('publishVersion', key);
    if (!stored) {
      throw new NotFoundError(
        `prompt ${request.promptId} of account ${accountId} has no version ${request.version}: give its content to publish it`,
      );
    }
    content = fromStoredContent(stored);
  }
  const summary = await importAccounts(table, [
    {
      accountId,
      keys: [],
      prompts: [
        {
          promptId: request.promptId,
          ...(request.promptName === undefined ? {} : { promptName: request.promptName }),
          versions: [
            {
              version: request.version,
              systemMessage: content.systemMessage,
              userMessage: content.userMessage,
              config: content.config,
              published: true,
            },
          ],
        },
      ],
    },
  ]);
  return summary.versions.unchanged > 0 ? 'already-published' : 'published';
}

