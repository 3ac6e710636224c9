import { parseTemplate, variablesOf } from '../../../client/src/template';
import type { PromptConfig } from '../../domain/prompt';
import { contentOf } from '../../table/item-builders';
import type { ChangeRequestItem, PromptVersionItem } from '../../table/item-types';
import { keys } from '../../table/schema';
import { fromStoredContent } from '../../table/stored-content';
import type { Table } from '../../table/table';

/** One side of a request's diff: a version's messages and config, or null for no version (no label, or removed). */
export interface ChangeRequestSide {
  readonly version: string;
  readonly systemMessage: string;
  readonly userMessage: string;
  readonly config: PromptConfig;
}

/** What a reviewer compares: both versions' content, and the placeholders the move adds and takes away. */
export interface ChangeRequestDiff {
  readonly fromVersion: ChangeRequestSide | null;
  readonly toVersion: ChangeRequestSide | null;
  readonly placeholders: { readonly added: string[]; readonly removed: string[] };
}

/** The placeholders of a version's messages, by the one template parser (client/src/template.ts) the clients and the dashboard use. */
const placeholdersOf = (side: ChangeRequestSide | null): string[] =>
  side ? variablesOf(parseTemplate(side.systemMessage), parseTemplate(side.userMessage)) : [];

export async function changeRequestDiff(
  table: Table,
  accountId: string,
  item: Pick<ChangeRequestItem, 'promptId' | 'from' | 'to'>,
): Promise<ChangeRequestDiff> {
  const side = async (version: string | null): Promise<ChangeRequestSide | null> => {
    if (version === null) return null;
    const stored = await table.get<PromptVersionItem>('changeRequestDiff', keys.promptVersion(accountId, item.promptId, version));
    if (!stored) return null;
    const { systemMessage, userMessage, config } = contentOf(fromStoredContent(stored));
    return { version, systemMessage, userMessage, config };
  };
  const [fromVersion, toVersion] = await Promise.all([side(item.from), side(item.to)]);
  const before = placeholdersOf(fromVersion);
  const after = placeholdersOf(toVersion);
  return {
    fromVersion,
    toVersion,
    placeholders: { added: after.filter((name) => !before.includes(name)), removed: before.filter((name) => !after.includes(name)) },
  };
}
