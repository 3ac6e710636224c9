import type { PromptDetails, PromptDetailsChange } from '../../domain/prompt-details';
import { commitUnaudited } from '../../operations/commit';
import type { OperationContext } from '../../operations/context';
import type { Table } from '../../table/table';
import {
  planCreateDraft,
  planCreatePrompt,
  planDeleteDraft,
  planPublishDraft,
  planReplaceDraft,
  type PromptListEntry,
  type StoredVersionContent,
  type VersionContent,
  type VersionSummary,
} from './authoring';
import { planDeletePrompt, planRestorePrompt } from './deletion';
import { planUpdatePromptDetails } from './details';
import { planPromptRelease, type PromptRelease, type ReleaseResult, releaseSteps } from './release';

/**
 * Prompts and their versions (`ops.prompts`): a prompt created, drafts saved and published, its details, a delete
 * and a restore, and one prompt of a push (`release`).
 */
export class PromptOperations {
  constructor(private readonly context: OperationContext) {}

  create(accountId: string, prompt: { promptId: string; promptName: string }): Promise<PromptListEntry> {
    return this.context.audited({ accountId, action: 'prompt.create', target: { promptId: prompt.promptId }, requested: prompt }, () =>
      planCreatePrompt(this.context.table, accountId, prompt, this.context.by),
    );
  }

  createDraft(accountId: string, promptId: string, version: string, content: VersionContent): Promise<StoredVersionContent> {
    return this.context.audited({ accountId, action: 'draft.create', target: { promptId, version }, requested: content }, () =>
      planCreateDraft(this.context.table, accountId, promptId, version, content, this.context.by),
    );
  }

  replaceDraft(accountId: string, promptId: string, version: string, content: VersionContent, ifMatch: string): Promise<StoredVersionContent> {
    return this.context.audited({ accountId, action: 'draft.save', target: { promptId, version }, requested: content, before: { etag: ifMatch } }, () =>
      planReplaceDraft(this.context.table, accountId, promptId, version, content, ifMatch, this.context.by),
    );
  }

  deleteDraft(accountId: string, promptId: string, version: string, ifMatch: string): Promise<void> {
    return this.context.audited({ accountId, action: 'draft.delete', target: { promptId, version }, before: { etag: ifMatch } }, () =>
      planDeleteDraft(this.context.table, accountId, promptId, version, ifMatch, this.context.by),
    );
  }

  publish(accountId: string, promptId: string, version: string, ifMatch: string, note: string): Promise<VersionSummary> {
    return this.context.audited({ accountId, action: 'version.publish', target: { promptId, version }, requested: { note }, before: { etag: ifMatch } }, () =>
      planPublishDraft(this.context.table, accountId, promptId, version, ifMatch, note, this.context.by),
    );
  }

  /** A new name, description or tags; a new name is what the read API serves from the next request. */
  updateDetails(accountId: string, promptId: string, change: PromptDetailsChange): Promise<PromptDetails> {
    return this.context.audited({ accountId, action: 'prompt.update', target: { promptId }, requested: change }, () =>
      planUpdatePromptDetails(this.context.table, accountId, promptId, change, this.context.by),
    );
  }

  delete(accountId: string, promptId: string): Promise<{ alreadyDeleted: boolean }> {
    return this.context.audited({ accountId, action: 'prompt.delete', target: { promptId } }, () => planDeletePrompt(this.context.table, accountId, promptId));
  }

  restore(accountId: string, promptId: string): Promise<{ alreadyVisible: boolean }> {
    return this.context.audited({ accountId, action: 'prompt.restore', target: { promptId } }, () =>
      planRestorePrompt(this.context.table, accountId, promptId),
    );
  }

  /**
   * One prompt of a `prompts push`: created, published, labelled and described in one transaction, each step
   * with its own audit entry, so the prompt is as the file says or as it was. A label the account puts under
   * approval is not moved: a change request is opened for it in the same transaction (`requests`).
   */
  async release(accountId: string, release: PromptRelease, options: { note?: string } = {}): Promise<ReleaseResult> {
    const asked = { ...release, ...(options.note === undefined ? {} : { changeRequestNote: options.note }) };
    // The entry names the first step as asked; the plan names it anew once the gate has split the labels.
    const [first] = releaseSteps(asked, { was: new Map(), promptName: '', description: null, tags: [] });
    if (!first) return { steps: 0, changeRequests: [] };
    const { after: _after, ...step } = first;
    const { actor, by } = this.context;
    return this.context.audited({ accountId, ...step }, () => planPromptRelease(this.context.table, accountId, asked, { actor, by }));
  }
}

/** For bulk paths (fixtures): a delete without an audit entry of its own, the revision raised. */
export function deletePrompt(table: Table, accountId: string, promptId: string): Promise<{ alreadyDeleted: boolean }> {
  return commitUnaudited(table, 'deletePrompt', () => planDeletePrompt(table, accountId, promptId), { raiseRevisionOf: accountId });
}

/** For bulk paths (fixtures): a restore without an audit entry of its own, the revision raised. */
export function restorePrompt(table: Table, accountId: string, promptId: string): Promise<{ alreadyVisible: boolean }> {
  return commitUnaudited(table, 'restorePrompt', () => planRestorePrompt(table, accountId, promptId), { raiseRevisionOf: accountId });
}
