import * as accounts from '../../../lambda/management-api/handlers/account-contracts';
import * as audit from '../../../lambda/management-api/handlers/audit-contracts';
import * as changeRequests from '../../../lambda/management-api/handlers/change-request-contracts';
import * as keys from '../../../lambda/management-api/handlers/key-contracts';
import * as members from '../../../lambda/management-api/handlers/member-contracts';
import * as prompts from '../../../lambda/management-api/handlers/prompt-contracts';
import * as runs from '../../../lambda/management-api/handlers/run-contracts';
import * as rollouts from '../../../lambda/management-api/handlers/rollout-contracts';
import * as usage from '../../../lambda/management-api/handlers/usage-contracts';
import * as webhooks from '../../../lambda/management-api/handlers/webhook-contracts';
import type { ChangeRequestState } from '../../../lambda/domain/change-request';
import { ApiProblem } from '../logic/api-errors';
import type { Role } from '../logic/roles';
import { createCaller } from './call';
import { createRunStreamer } from './run-stream';
import type {
  AccountChange,
  KeyChange,
  LabelMove,
  LabelRemoval,
  NewKey,
  NewWebhook,
  PromptDetailsChange,
  Rollout,
  RolloutStart,
  RolloutStartOutcome,
  StoredVersion,
  VersionContent,
  WebhookChange,
} from './types';

/**
 * The management API on the dashboard's own origin (`/api`), with the signed-in person's ID token: each call by its
 * route's contract (call.ts), so every answer is parsed with the schema the API answers by. Every failure is an
 * ApiProblem (status 0 and code NETWORK when no answer came); a 401 also tells the page, which then asks the
 * person to sign in again.
 */
export interface ApiOptions {
  readonly token: () => string | undefined;
  readonly onUnauthorized: () => void;
}

export function createApi({ token, onUnauthorized }: ApiOptions) {
  const call = createCaller({ token, onUnauthorized });
  const inAccount = (accountId: string) => ({ accountId });
  const ofPrompt = (accountId: string, promptId: string) => ({ accountId, promptId });
  const ofVersion = (accountId: string, promptId: string, version: string) => ({ accountId, promptId, version });
  const ofLabel = (accountId: string, promptId: string, label: string) => ({ accountId, promptId, label });
  /** A version as read or saved, its ETag the header's (the body carries the same). */
  const stored = ({ body, etag }: { body: StoredVersion; etag: string | null }): StoredVersion => ({ ...body, etag: etag ?? body.etag });

  return {
    me: async () => (await call(accounts.readMe, { params: {} })).body,
    account: async (accountId: string) => (await call(accounts.readAccount, { params: inAccount(accountId) })).body,
    updateAccount: async (accountId: string, change: AccountChange) =>
      (await call(accounts.updateAccount, { params: inAccount(accountId), body: change })).body,

    prompts: async (accountId: string) => (await call(prompts.listPrompts, { params: inAccount(accountId) })).body.prompts,
    createPrompt: async (accountId: string, promptId: string, promptName: string) =>
      (await call(prompts.createPrompt, { params: inAccount(accountId), body: { promptId, promptName } })).body,
    prompt: async (accountId: string, promptId: string) => (await call(prompts.readPrompt, { params: ofPrompt(accountId, promptId) })).body,
    updatePromptDetails: async (accountId: string, promptId: string, change: PromptDetailsChange) =>
      (await call(prompts.updatePromptDetails, { params: ofPrompt(accountId, promptId), body: change })).body,
    deletePrompt: async (accountId: string, promptId: string) => {
      await call(prompts.deletePrompt, { params: ofPrompt(accountId, promptId) });
    },
    restorePrompt: async (accountId: string, promptId: string) => {
      await call(prompts.restorePrompt, { params: ofPrompt(accountId, promptId) });
    },

    version: async (accountId: string, promptId: string, v: string) => stored(await call(prompts.readVersion, { params: ofVersion(accountId, promptId, v) })),
    /** A new draft: `If-None-Match: *`, so an existing version is never overwritten. */
    createDraft: async (accountId: string, promptId: string, v: string, content: VersionContent) =>
      stored(await call(prompts.saveDraft, { params: ofVersion(accountId, promptId, v), body: content, headers: { 'If-None-Match': '*' } })),
    /** Saves over the draft as it was read (`etag`): a 412 means someone saved in between. */
    saveDraft: async (accountId: string, promptId: string, v: string, content: VersionContent, etag: string) =>
      stored(await call(prompts.saveDraft, { params: ofVersion(accountId, promptId, v), body: content, headers: { 'If-Match': etag } })),
    deleteDraft: async (accountId: string, promptId: string, v: string, etag: string) => {
      await call(prompts.deleteDraft, { params: ofVersion(accountId, promptId, v), headers: { 'If-Match': etag } });
    },
    publish: async (accountId: string, promptId: string, v: string, etag: string, note: string) =>
      (await call(prompts.publishVersion, { params: ofVersion(accountId, promptId, v), body: { note }, headers: { 'If-Match': etag } })).body,
    /**
     * Moves a label (200), or, where the account's approvals cover it, opens a change request instead (202): the
     * outcome says which. A restore is a move back to a version the label pointed at before, marked as such.
     */
    setLabel: async (accountId: string, promptId: string, label: string, v: string, options: { note?: string; restore?: boolean } = {}): Promise<LabelMove> => {
      const note = options.note?.trim();
      const answer = await call(prompts.setLabel, {
        params: ofLabel(accountId, promptId, label),
        body: { version: v, ...(note ? { note } : {}), ...(options.restore ? { restore: true } : {}) },
      });
      return answer.status === 202 ? { kind: 'requested', request: answer.body.request } : { kind: 'moved' };
    },
    /** A label's moves, newest first, 50 a page; `before` is the `next` of the page before. */
    labelHistory: async (accountId: string, promptId: string, label: string, before?: string) =>
      (await call(prompts.labelHistory, { params: ofLabel(accountId, promptId, label), query: before === undefined ? {} : { before } })).body,
    /** Takes a label off (204), or, where the account's approvals cover it, opens a change request for that (202). */
    removeLabel: async (accountId: string, promptId: string, label: string): Promise<LabelRemoval> => {
      const answer = await call(prompts.removeLabel, { params: ofLabel(accountId, promptId, label) });
      return answer.status === 202 ? { kind: 'requested', request: answer.body.request } : { kind: 'removed' };
    },

    /** The label's active rollout; undefined when it has none (404): an ended rollout lives on in the label's history. */
    rollout: async (accountId: string, promptId: string, label: string): Promise<Rollout | undefined> => {
      try {
        return (await call(rollouts.readRollout, { params: ofLabel(accountId, promptId, label) })).body.rollout;
      } catch (problem) {
        if (problem instanceof ApiProblem && problem.status === 404) return undefined;
        throw problem;
      }
    },
    /** Starts a rollout (201), or, where the account's approvals cover the label, opens a change request that carries it (202). */
    startRollout: async (accountId: string, promptId: string, label: string, start: RolloutStart): Promise<RolloutStartOutcome> => {
      const { note, ...rest } = start;
      const said = note?.trim();
      const answer = await call(rollouts.startRollout, { params: ofLabel(accountId, promptId, label), body: said ? { ...rest, note: said } : rest });
      return answer.status === 202 ? { kind: 'requested', request: answer.body.request } : { kind: 'started', rollout: answer.body.rollout };
    },
    /** Each change below names the rollout it is meant for: one that ended meanwhile (another on the label since) is a 409, and nothing changes. */
    changeRolloutShare: async (accountId: string, promptId: string, label: string, percent: number, rolloutId: string) =>
      (await call(rollouts.changeRollout, { params: ofLabel(accountId, promptId, label), body: { percent, rolloutId } })).body.rollout,
    completeRollout: async (accountId: string, promptId: string, label: string, rolloutId: string) =>
      (await call(rollouts.completeRollout, { params: ofLabel(accountId, promptId, label), body: { rolloutId } })).body.rollout,
    abortRollout: async (accountId: string, promptId: string, label: string, reason: string, rolloutId: string) =>
      (
        await call(rollouts.abortRollout, {
          params: ofLabel(accountId, promptId, label),
          body: reason.trim() ? { reason: reason.trim(), rolloutId } : { rolloutId },
        })
      ).body.rollout,

    keys: async (accountId: string) => (await call(keys.listKeys, { params: inAccount(accountId) })).body.keys,
    createKey: async (accountId: string, input: NewKey) => (await call(keys.createKey, { params: inAccount(accountId), body: input })).body,
    updateKey: async (accountId: string, keyId: string, change: KeyChange) => (await call(keys.updateKey, { params: { accountId, keyId }, body: change })).body,
    rotateKey: async (accountId: string, keyId: string, graceSeconds: number) =>
      (await call(keys.rotateKey, { params: { accountId, keyId }, body: { graceSeconds } })).body,
    revokeKey: async (accountId: string, keyId: string) => (await call(keys.revokeKey, { params: { accountId, keyId } })).body,

    webhooks: async (accountId: string) => (await call(webhooks.listWebhooks, { params: inAccount(accountId) })).body.webhooks,
    createWebhook: async (accountId: string, input: NewWebhook) => (await call(webhooks.createWebhook, { params: inAccount(accountId), body: input })).body,
    updateWebhook: async (accountId: string, webhookId: string, change: WebhookChange) =>
      (await call(webhooks.updateWebhook, { params: { accountId, webhookId }, body: change })).body,
    deleteWebhook: async (accountId: string, webhookId: string) => {
      await call(webhooks.deleteWebhook, { params: { accountId, webhookId } });
    },
    rotateWebhookSecret: async (accountId: string, webhookId: string) => (await call(webhooks.rotateWebhookSecret, { params: { accountId, webhookId } })).body,
    /** Sends a `webhook.test` event to this webhook alone (202): its delivery shows in the deliveries a moment later. */
    testWebhook: async (accountId: string, webhookId: string) => (await call(webhooks.testWebhook, { params: { accountId, webhookId } })).body.eventId,
    /** The last 100 attempts, newest first. */
    webhookDeliveries: async (accountId: string, webhookId: string) =>
      (await call(webhooks.listDeliveries, { params: { accountId, webhookId } })).body.deliveries,

    /** The stack's catalog of models a run may name. */
    models: async (accountId: string) => (await call(runs.listModels, { params: inAccount(accountId) })).body.models,
    /** Runs a prompt, read as the model writes (run-stream.ts); aborting `signal` stops it. */
    runStream: createRunStreamer({ token, onUnauthorized }),
    /** One prompt's runs, newest first, 50 a page, without their messages; `before` is the `next` of the page before. */
    runs: async (accountId: string, promptId: string, before?: string) =>
      (await call(runs.listRuns, { params: inAccount(accountId), query: { promptId, ...(before === undefined ? {} : { before }) } })).body,
    run: async (accountId: string, runId: string) => (await call(runs.readRun, { params: { accountId, runId } })).body.run,

    usage: async (accountId: string, month: string) => (await call(usage.readUsage, { params: inAccount(accountId), query: { month } })).body,

    members: async (accountId: string) => (await call(members.listMembers, { params: inAccount(accountId) })).body.members,
    addMember: async (accountId: string, email: string, role: Role) =>
      (await call(members.addMember, { params: inAccount(accountId), body: { email, role } })).body,
    setRole: async (accountId: string, userId: string, role: Role) =>
      (await call(members.setMemberRole, { params: { accountId, userId }, body: { role } })).body,
    removeMember: async (accountId: string, userId: string) => {
      await call(members.removeMember, { params: { accountId, userId } });
    },

    /** The account's change requests, newest first (every open one; otherwise 50 a page); all states without one. */
    requests: async (accountId: string, state?: ChangeRequestState | '', before?: string) =>
      (
        await call(changeRequests.listChangeRequests, {
          params: inAccount(accountId),
          query: { ...(state ? { state } : {}), ...(before === undefined ? {} : { before }) },
        })
      ).body,
    request: async (accountId: string, requestId: string) => (await call(changeRequests.readChangeRequest, { params: { accountId, requestId } })).body,
    approveRequest: async (accountId: string, requestId: string, comment: string) =>
      (await call(changeRequests.approveChangeRequest, { params: { accountId, requestId }, body: comment.trim() ? { comment: comment.trim() } : {} })).body
        .request,
    rejectRequest: async (accountId: string, requestId: string, comment: string) =>
      (await call(changeRequests.rejectChangeRequest, { params: { accountId, requestId }, body: comment.trim() ? { comment: comment.trim() } : {} })).body
        .request,
    withdrawRequest: async (accountId: string, requestId: string) =>
      (await call(changeRequests.withdrawChangeRequest, { params: { accountId, requestId } })).body.request,

    /** A page of the audit log, narrowed by the filters given (actor, prompt, action, outcome, from, to). */
    audit: async (accountId: string, before: string | undefined, filters: Readonly<Record<string, string>> = {}) =>
      (
        await call(audit.readAudit, {
          params: inAccount(accountId),
          query: { ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== '')), ...(before === undefined ? {} : { before }) },
        })
      ).body,
  };
}

export type Api = ReturnType<typeof createApi>;
