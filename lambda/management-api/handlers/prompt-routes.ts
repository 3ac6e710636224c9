import type * as z from 'zod';
import { contentBytes, MAX_CONTENT_BYTES } from '../../domain/content-rules';
import { atLeast, roleForLabel } from '../../domain/roles';
import { getAccountSettings } from '../../table/accounts';
import { getPromptDetail, listPrompts, readVersion, type StoredVersionContent } from '../../table/prompt-authoring';
import { badRequest, forbidden, payloadTooLarge, preconditionRequired } from '../management-errors';
import type { ManagementRequest, Reply, RouteSpec } from '../management-request';
import { CreatePromptBody, LabelBody, PromptPatchBody, PublishBody, VersionContentBody } from '../schemas';

const PROMPTS = '/api/accounts/{accountId}/prompts';
const PROMPT = `${PROMPTS}/{promptId}`;
const VERSION = `${PROMPT}/versions/{version}`;
const LABEL = `${PROMPT}/labels/{label}`;

const param = (request: ManagementRequest, name: string): string => request.params[name] as string;

/** A strong ETag as sent and compared: the tag in quotes. A weak one never matches. */
const quoted = (etag: string) => `"${etag}"`;

function ifMatchOf(request: ManagementRequest): string {
  const value = request.headers['if-match'];
  if (value === undefined) throw preconditionRequired('If-Match is required: send the ETag of the draft as you read it');
  const match = /^"([^"]*)"$/.exec(value.trim());
  // Unquoted, weak or a list: it cannot name this draft's current content, so it is a stale precondition.
  return match?.[1] ?? `unmatched:${value}`;
}

function versionReply(status: number, version: StoredVersionContent): Reply {
  const { etag, ...body } = version;
  return { status, body: { ...body, etag: quoted(etag) }, headers: { ETag: quoted(etag) } };
}

/** Labels an account protects need admins; the rest editors. */
async function requireLabelRole(request: ManagementRequest): Promise<void> {
  const { protectedLabels } = await getAccountSettings(request.table, param(request, 'accountId'));
  const needed = roleForLabel(param(request, 'label'), protectedLabels);
  if (!request.member || !atLeast(request.member.role, needed)) {
    throw forbidden(`label ${param(request, 'label')} is protected in this account: moving or removing it needs ${needed}`);
  }
}

export const promptRoutes: readonly RouteSpec[] = [
  {
    method: 'GET',
    path: PROMPTS,
    access: 'viewer',
    async handle(request) {
      return { status: 200, body: { prompts: await listPrompts(request.table, param(request, 'accountId')) } };
    },
  },
  {
    method: 'POST',
    path: PROMPTS,
    access: 'editor',
    action: 'prompt.create',
    bodyTarget: ['promptId'],
    body: CreatePromptBody,
    async handle(request) {
      const input = request.body as z.infer<typeof CreatePromptBody>;
      return { status: 201, body: await request.ops.createPrompt(param(request, 'accountId'), input) };
    },
  },
  {
    method: 'GET',
    path: PROMPT,
    access: 'viewer',
    async handle(request) {
      return { status: 200, body: await getPromptDetail(request.table, param(request, 'accountId'), param(request, 'promptId')) };
    },
  },
  {
    method: 'PATCH',
    path: PROMPT,
    access: 'editor',
    action: 'prompt.update',
    body: PromptPatchBody,
    async handle(request) {
      const change = request.body as z.infer<typeof PromptPatchBody>;
      const details = await request.ops.updatePromptDetails(param(request, 'accountId'), param(request, 'promptId'), change);
      return { status: 200, body: { promptId: param(request, 'promptId'), ...details } };
    },
  },
  {
    method: 'GET',
    path: VERSION,
    access: 'viewer',
    async handle(request) {
      const version = await readVersion(request.table, param(request, 'accountId'), param(request, 'promptId'), param(request, 'version'));
      return versionReply(200, version);
    },
  },
  {
    method: 'PUT',
    path: VERSION,
    access: 'editor',
    action: 'draft.save',
    body: VersionContentBody,
    async handle(request) {
      const content = request.body as z.infer<typeof VersionContentBody>;
      const bytes = contentBytes(content);
      if (bytes > MAX_CONTENT_BYTES) throw payloadTooLarge(bytes);
      const [accountId, promptId, version] = [param(request, 'accountId'), param(request, 'promptId'), param(request, 'version')];
      const ifNoneMatch = request.headers['if-none-match'];
      if (ifNoneMatch !== undefined) {
        if (ifNoneMatch.trim() !== '*') throw badRequest('If-None-Match: only * (create a new draft) is understood here', 'If-None-Match');
        return versionReply(201, await request.ops.createDraft(accountId, promptId, version, content));
      }
      if (request.headers['if-match'] === undefined) {
        throw preconditionRequired('send If-None-Match: * to create a draft, or If-Match with its ETag to replace one');
      }
      return versionReply(200, await request.ops.replaceDraft(accountId, promptId, version, content, ifMatchOf(request)));
    },
  },
  {
    method: 'DELETE',
    path: VERSION,
    access: 'editor',
    action: 'draft.delete',
    async handle(request) {
      const ifMatch = ifMatchOf(request);
      await request.ops.deleteDraft(param(request, 'accountId'), param(request, 'promptId'), param(request, 'version'), ifMatch);
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: `${VERSION}/publish`,
    access: 'editor',
    action: 'version.publish',
    body: PublishBody,
    async handle(request) {
      const { note } = request.body as z.infer<typeof PublishBody>;
      const ifMatch = ifMatchOf(request);
      const published = await request.ops.publish(param(request, 'accountId'), param(request, 'promptId'), param(request, 'version'), ifMatch, note);
      return { status: 200, body: published };
    },
  },
  {
    method: 'PUT',
    path: LABEL,
    access: 'editor',
    action: 'label.set',
    body: LabelBody,
    async handle(request) {
      await requireLabelRole(request);
      const { version } = request.body as z.infer<typeof LabelBody>;
      const label = param(request, 'label');
      const { previousVersion } = await request.ops.setLabel(param(request, 'accountId'), param(request, 'promptId'), label, version);
      return { status: 200, body: { label, version, previous: previousVersion ?? null } };
    },
  },
  {
    method: 'DELETE',
    path: LABEL,
    access: 'editor',
    action: 'label.remove',
    async handle(request) {
      await requireLabelRole(request);
      await request.ops.removeLabel(param(request, 'accountId'), param(request, 'promptId'), param(request, 'label'));
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: `${PROMPT}/delete`,
    access: 'admin',
    action: 'prompt.delete',
    async handle(request) {
      await request.ops.deletePrompt(param(request, 'accountId'), param(request, 'promptId'));
      return { status: 200, body: { promptId: param(request, 'promptId'), deleted: true } };
    },
  },
  {
    method: 'POST',
    path: `${PROMPT}/restore`,
    access: 'admin',
    action: 'prompt.restore',
    async handle(request) {
      await request.ops.restorePrompt(param(request, 'accountId'), param(request, 'promptId'));
      return { status: 200, body: { promptId: param(request, 'promptId'), deleted: false } };
    },
  },
];
