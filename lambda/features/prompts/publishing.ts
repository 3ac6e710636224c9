import type { PromptContent } from '../../domain/prompt';
import { compareVersions, versionSortKey } from '../../domain/version';
import { contentOf, versionItem } from '../../table/item-builders';
import type { PromptHeadItem, PromptVersionItem, WithKeys } from '../../table/item-types';
import { keys } from '../../table/schema';
import { fromStoredContent, toStoredContent } from '../../table/stored-content';
import type { TransactionWrite } from '../../table/transaction';
import { buildUpdate, type ExpressionNames } from '../../table/update-expression';
import { notDeleted } from '../labels/label-move';

/**
 * Publishing a version, the one way both paths that publish do it: a draft published (authoring.ts
 * planPublishDraft), and the file's version of one prompt of a push (release.ts). A published version never changes:
 * its item says who published it, when, and with what note. The prompt's latest moves up to it when it is the
 * highest, on the condition that latest is still below it (a racing publish of a higher version makes this one read
 * again and leave latest alone, so latest only ever moves up), and the prompt is not deleted.
 */
export interface Publication {
  /** The version's item: the draft made published under the ETag read, or the pushed version put whole, new. */
  readonly versionWrite: TransactionWrite;
  /** The published version's content. */
  readonly content: PromptContent;
  /** What the publish sets on the head: latest, when the version is the highest. */
  readonly headSet: Record<string, unknown>;
  /** What the head's write holds: the prompt not deleted, and latest still below the version when it moves latest. */
  readonly headConditions: (e: ExpressionNames) => string[];
}

/** Who published a version, when, and why: what its item says from then on. */
const publishedFields = (at: string, by: string, note: string) => ({ published: true, publishedAt: at, publishedBy: by, note });

/** A draft made published: its item updated, on the condition that it is still the draft read (`draftHolds`). */
export function publishDraft(
  accountId: string,
  head: Pick<PromptHeadItem, 'promptId' | 'latest'>,
  draft: PromptVersionItem,
  draftHolds: (e: ExpressionNames) => string,
  published: { readonly note: string; readonly at: string; readonly by: string },
): Publication {
  const { note, at, by } = published;
  const content = contentOf(fromStoredContent(draft));
  return {
    versionWrite: {
      Update: {
        Key: keys.promptVersion(accountId, head.promptId, draft.version),
        ...buildUpdate({ set: publishedFields(at, by, note), condition: draftHolds }),
      },
    },
    content,
    ...latestMove(head, content),
  };
}

/** A version published as it is written (a push): its item put whole, new (a version of that number exists: refused). */
export function publishNewVersion(
  accountId: string,
  promptId: string,
  head: Pick<PromptHeadItem, 'latest'> | undefined,
  version: PromptContent,
  published: { readonly note: string; readonly at: string; readonly by: string },
): Publication {
  const { note, at, by } = published;
  const content = contentOf(version);
  const item: WithKeys<PromptVersionItem> = {
    ...versionItem(accountId, promptId, { ...content, published: true }),
    ...publishedFields(at, by, note),
    updatedAt: at,
    updatedBy: by,
  };
  return { versionWrite: { Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }, content, ...latestMove(head, content) };
}

/** Latest moved up to the version when it is the highest (for a prompt the same change creates, it is). */
function latestMove(head: Pick<PromptHeadItem, 'latest'> | undefined, content: PromptContent): Pick<Publication, 'headSet' | 'headConditions'> {
  const becomesLatest = head?.latest === undefined || compareVersions(content.version, head.latest.version) > 0;
  return {
    headSet: becomesLatest ? { latest: toStoredContent(content), latestKey: versionSortKey(content.version) } : {},
    headConditions: (e) => [notDeleted(e), ...(becomesLatest && head ? [latestBelow(e, content.version, head)] : [])],
  };
}

/**
 * The head's latest is still below `version` (a racing publish of a higher one makes this one read again, and
 * leave latest alone): by `latestKey`, or, on a head written before it existed, by the latest version it shows.
 */
export function latestBelow(e: ExpressionNames, version: string, head: Pick<PromptHeadItem, 'latest'>): string {
  const legacy = head.latest ? ` OR attribute_not_exists(${e.name('latestKey')}) AND ${e.name('latest.version')} = ${e.value(head.latest.version)}` : '';
  return `(attribute_not_exists(${e.name('latest')}) OR ${e.name('latestKey')} < ${e.value(versionSortKey(version))}${legacy})`;
}
