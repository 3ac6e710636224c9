import { LATEST_LABEL } from '../../domain/label';
import type { PromptConfig } from '../../domain/prompt';
import type { AccountItem, PromptHeadItem, PromptLabelItem, PromptVersionItem, StoredContent, WithKeys } from '../../table/item-types';
import { keys } from '../../table/schema';
import { fromStoredContent } from '../../table/stored-content';
import { NotFoundError } from '../../table/errors';
import { PromptDeletedError, PromptMissingError } from '../errors';
import type { RunSource } from './run-record';

/**
 * What a run runs: the prompt's messages and configuration from its source (a version, a label, or unsaved content),
 * read with the account in one BatchGetItem.
 */
export interface ResolvedSource {
  readonly promptId: string | null;
  readonly version: string | null;
  readonly label: string | null;
  readonly systemMessage: string;
  readonly userMessage: string;
  readonly config: Pick<PromptConfig, 'model' | 'temperature'> & { readonly schema: unknown };
}

/** The items a run reads, all at once: the account (its budget), and the source's prompt, version or label. */
export function sourceKeys(accountId: string, source: RunSource): Record<string, string>[] {
  const account = keys.account(accountId);
  if ('prompt' in source) return source.promptId === undefined ? [account] : [account, keys.promptHead(accountId, source.promptId)];
  const head = keys.promptHead(accountId, source.promptId);
  if ('version' in source) return [account, head, keys.promptVersion(accountId, source.promptId, source.version)];
  if (source.label === LATEST_LABEL) return [account, head];
  return [account, head, keys.promptLabel(accountId, source.label, source.promptId)];
}

/** What the BatchGetItem found, each item by its keys, typed by what its key says it is (as Table.get types a read). */
export class ReadItems {
  constructor(private readonly items: readonly { readonly pk?: unknown; readonly sk?: unknown }[]) {}

  find<T>(key: { readonly pk: string; readonly sk: string }): WithKeys<T> | undefined;
  find(key: { readonly pk: string; readonly sk: string }) {
    return this.items.find((item) => item.pk === key.pk && item.sk === key.sk);
  }
}

export function resolveSource(accountId: string, source: RunSource, items: ReadItems): { account: AccountItem; source: ResolvedSource } {
  const account = items.find<AccountItem>(keys.account(accountId));
  if (!account) throw new NotFoundError(`account ${accountId} does not exist`);
  const promptId = source.promptId;
  if (promptId !== undefined) {
    const head = items.find<PromptHeadItem>(keys.promptHead(accountId, promptId));
    if (!head) throw new PromptMissingError(accountId, promptId);
    if (head.deleted === true) throw new PromptDeletedError(accountId, promptId);
    if ('prompt' in source) return { account, source: { promptId, version: null, label: null, ...unsaved(source) } };
    if ('version' in source) {
      const version = items.find<PromptVersionItem>(keys.promptVersion(accountId, promptId, source.version));
      if (!version) throw new NotFoundError(`prompt ${promptId} has no version ${source.version}`);
      return { account, source: fromContent(promptId, null, version) };
    }
    if (source.label === LATEST_LABEL) {
      if (!head.latest) throw new NotFoundError(`prompt ${promptId} has no published version: latest names none`);
      return { account, source: fromContent(promptId, LATEST_LABEL, head.latest) };
    }
    const labelled = items.find<PromptLabelItem>(keys.promptLabel(accountId, source.label, promptId))?.labelled;
    if (!labelled) throw new NotFoundError(`prompt ${promptId} has no label ${source.label}`);
    return { account, source: fromContent(promptId, source.label, labelled) };
  }
  if (!('prompt' in source)) throw new Error('a stored source names its prompt');
  return { account, source: { promptId: null, version: null, label: null, ...unsaved(source) } };
}

function unsaved(source: Extract<RunSource, { prompt: unknown }>): Pick<ResolvedSource, 'systemMessage' | 'userMessage' | 'config'> {
  const { systemMessage, userMessage, config } = source.prompt;
  return { systemMessage, userMessage, config: { model: config.model, temperature: config.temperature, schema: config.schema ?? [] } };
}

function fromContent(promptId: string, label: string | null, stored: StoredContent): ResolvedSource {
  const content = fromStoredContent(stored);
  return {
    promptId,
    version: content.version,
    label,
    systemMessage: content.systemMessage,
    userMessage: content.userMessage,
    config: { model: content.config.model, temperature: content.config.temperature, schema: content.config.schema ?? [] },
  };
}
