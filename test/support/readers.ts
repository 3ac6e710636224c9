import type { PromptReader } from '../../lambda/read-api/store/api-store';

/** A deadline that never passes: for tests that call the store directly, outside a request. */
export const noDeadline: AbortSignal = new AbortController().signal;

/** How a request reads an account's prompts, for tests that call a PromptStore directly. */
export const readerOf = (accountId: string, promptsRevision = 0): PromptReader => ({
  accountId,
  promptsRevision,
  deadline: noDeadline,
});
