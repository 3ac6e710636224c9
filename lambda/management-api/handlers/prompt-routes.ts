import { contentBytes, MAX_CONTENT_BYTES } from '../../domain/content-rules';
import { readLabelHistory } from '../../features/labels/history';
import { getPromptDetail, listPrompts, readVersion, type StoredVersionContent } from '../../features/prompts/authoring';
import { badRequest, payloadTooLarge, preconditionRequired } from '../management-errors';
import { defineRoute, type HandlerInput, type ManagementRoute } from '../route';
import * as contracts from './prompt-contracts';
import { requireLabelRole } from './label-access';

/** A strong ETag as sent and compared: the tag in quotes. A weak one never matches. */
const quoted = (etag: string) => `"${etag}"`;

function ifMatchOf(headers: HandlerInput['headers']): string {
  const value = headers['if-match'];
  if (value === undefined) throw preconditionRequired('If-Match is required: send the ETag of the draft as you read it');
  const match = /^"([^"]*)"$/.exec(value.trim());
  // Unquoted, weak or a list: it cannot name this draft's current content, so it is a stale precondition.
  return match?.[1] ?? `unmatched:${value}`;
}

function versionReply<Status extends 200 | 201>(status: Status, version: StoredVersionContent) {
  const { etag, ...body } = version;
  return { status, body: { ...body, etag: quoted(etag) }, headers: { ETag: quoted(etag) } };
}

export const promptRoutes: readonly ManagementRoute[] = [
  defineRoute(contracts.listPrompts, {
    access: 'read the account',
    async handle(request) {
      return { status: 200, body: { prompts: await listPrompts(request.table, request.params.accountId) } };
    },
  }),
  defineRoute(contracts.createPrompt, {
    access: 'create prompts',
    action: 'prompt.create',
    bodyTarget: ['promptId'],
    async handle(request) {
      return { status: 201, body: await request.ops.prompts.create(request.params.accountId, request.body) };
    },
  }),
  defineRoute(contracts.readPrompt, {
    access: 'read the account',
    async handle(request) {
      return { status: 200, body: await getPromptDetail(request.table, request.params.accountId, request.params.promptId) };
    },
  }),
  defineRoute(contracts.updatePromptDetails, {
    access: 'edit prompt details',
    action: 'prompt.update',
    async handle(request) {
      const { accountId, promptId } = request.params;
      const details = await request.ops.prompts.updateDetails(accountId, promptId, request.body);
      return { status: 200, body: { promptId, ...details } };
    },
  }),
  defineRoute(contracts.readVersion, {
    access: 'read the account',
    async handle(request) {
      const { accountId, promptId, version } = request.params;
      return versionReply(200, await readVersion(request.table, accountId, promptId, version));
    },
  }),
  defineRoute(contracts.saveDraft, {
    access: 'edit drafts',
    action: 'draft.save',
    async handle(request) {
      const content = request.body;
      const bytes = contentBytes(content);
      if (bytes > MAX_CONTENT_BYTES) throw payloadTooLarge(bytes);
      const { accountId, promptId, version } = request.params;
      const ifNoneMatch = request.headers['if-none-match'];
      if (ifNoneMatch !== undefined) {
        if (ifNoneMatch.trim() !== '*') throw badRequest('If-None-Match: only * (create a new draft) is understood here', 'If-None-Match');
        return versionReply(201, await request.ops.prompts.createDraft(accountId, promptId, version, content));
      }
      if (request.headers['if-match'] === undefined) {
        throw preconditionRequired('send If-None-Match: * to create a draft, or If-Match with its ETag to replace one');
      }
      return versionReply(200, await request.ops.prompts.replaceDraft(accountId, promptId, version, content, ifMatchOf(request.headers)));
    },
  }),
  defineRoute(contracts.deleteDraft, {
    access: 'edit drafts',
    action: 'draft.delete',
    async handle(request) {
      const ifMatch = ifMatchOf(request.headers);
      const { accountId, promptId, version } = request.params;
      await request.ops.prompts.deleteDraft(accountId, promptId, version, ifMatch);
      return { status: 204 };
    },
  }),
  defineRoute(contracts.publishVersion, {
    access: 'publish versions',
    action: 'version.publish',
    async handle(request) {
      const { note } = request.body;
      const ifMatch = ifMatchOf(request.headers);
      const { accountId, promptId, version } = request.params;
      const published = await request.ops.prompts.publish(accountId, promptId, version, ifMatch, note);
      return { status: 200, body: published };
    },
  }),
  defineRoute(contracts.setLabel, {
    access: 'move labels',
    action: 'label.set',
    async handle(request) {
      await requireLabelRole(request, request.params);
      const { version, note, restore } = request.body;
      const { accountId, promptId, label } = request.params;
      const options = { ...(note === undefined ? {} : { note }), ...(restore === undefined ? {} : { restore }) };
      // The operation decides whether the label moves or is asked for (a label under approval: 202).
      const outcome = await request.ops.labels.set(accountId, promptId, label, version, options);
      if ('changeRequest' in outcome) return { status: 202, body: { request: outcome.changeRequest } };
      return { status: 200, body: { label, version, previous: outcome.moved.previousVersion ?? null } };
    },
  }),
  defineRoute(contracts.labelHistory, {
    access: 'read the account',
    async handle(request) {
      const { accountId, promptId, label } = request.params;
      const { before } = request.query;
      return { status: 200, body: await readLabelHistory(request.table, accountId, promptId, label, before === undefined ? {} : { before }) };
    },
  }),
  defineRoute(contracts.removeLabel, {
    access: 'move labels',
    action: 'label.remove',
    async handle(request) {
      await requireLabelRole(request, request.params);
      const { accountId, promptId, label } = request.params;
      const outcome = await request.ops.labels.remove(accountId, promptId, label);
      return 'changeRequest' in outcome ? { status: 202, body: { request: outcome.changeRequest } } : { status: 204 };
    },
  }),
  defineRoute(contracts.deletePrompt, {
    access: 'delete and restore prompts',
    action: 'prompt.delete',
    async handle(request) {
      const { accountId, promptId } = request.params;
      await request.ops.prompts.delete(accountId, promptId);
      return { status: 200, body: { promptId, deleted: true } };
    },
  }),
  defineRoute(contracts.restorePrompt, {
    access: 'delete and restore prompts',
    action: 'prompt.restore',
    async handle(request) {
      const { accountId, promptId } = request.params;
      await request.ops.prompts.restore(accountId, promptId);
      return { status: 200, body: { promptId, deleted: false } };
    },
  }),
];
