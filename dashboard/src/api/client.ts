import { ApiProblem, problemFromAnswer } from '../logic/api-errors';
import type {
  AccountSettings,
  AddedMember,
  ApprovalSettings,
  ChangeRequest,
  LabelHistoryPage,
  LabelMove,
  LabelRemoval,
  RequestDetail,
  Rollout,
  RolloutStart,
  RolloutStartOutcome,
  RequestsPage,
  ApiKey,
  AuditPage,
  IssuedKey,
  IssuedWebhookSecret,
  KeyChange,
  Me,
  Member,
  NewKey,
  NewWebhook,
  PromptDetail,
  PromptDetailsChange,
  PromptListEntry,
  StoredVersion,
  Usage,
  VersionContent,
  VersionSummary,
  Webhook,
  WebhookChange,
  WebhookDelivery,
} from './types';
import type { Role } from '../logic/roles';

/**
 * The management API on the dashboard's own origin (`/api`), with the signed-in person's ID token.
 * Every failure is an ApiProblem (status 0 and code NETWORK when no answer came); a 401 also tells
 * the page, which then asks the person to sign in again.
 */
export interface ApiOptions {
  readonly token: () => string | undefined;
  readonly onUnauthorized: () => void;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const part = encodeURIComponent;

export function createApi({ token, onUnauthorized }: ApiOptions) {
  async function call<T>(
    method: Method,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ body: T; etag: string | null; status: number }> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    const bearer = token();
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`/api${path}`, {
        method,
        headers,
        cache: 'no-store',
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
    } catch {
      throw new ApiProblem(0, 'NETWORK', 'the service could not be reached');
    }
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      if (response.status === 401) onUnauthorized();
      throw problemFromAnswer(response.status, body);
    }
    return { body: body as T, etag: response.headers.get('ETag'), status: response.status };
  }

  const get = async <T>(path: string): Promise<T> => (await call<T>('GET', path)).body;
  const account = (accountId: string) => `/accounts/${part(accountId)}`;
  const prompt = (accountId: string, promptId: string) => `${account(accountId)}/prompts/${part(promptId)}`;
  const version = (accountId: string, promptId: string, v: string) => `${prompt(accountId, promptId)}/versions/${part(v)}`;
  const rolloutPath = (accountId: string, promptId: string, label: string) => `${prompt(accountId, promptId)}/labels/${part(label)}/rollout`;
  const key = (accountId: string, keyId: string) => `${account(accountId)}/keys/${part(keyId)}`;
  const webhook = (accountId: string, webhookId: string) => `${account(accountId)}/webhooks/${part(webhookId)}`;

  return {
    me: () => get<Me>('/me'),
    account: (accountId: string) => get<AccountSettings>(account(accountId)),
    updateAccount: async (accountId: string, change: { name?: string; protectedLabels?: string[]; approvals?: ApprovalSettings }) =>
      (await call<AccountSettings>('PATCH', account(accountId), { body: change })).body,

    prompts: async (accountId: string) => (await get<{ prompts: PromptListEntry[] }>(`${account(accountId)}/prompts`)).prompts,
    createPrompt: async (accountId: string, promptId: string, promptName: string) =>
      (await call<PromptListEntry>('POST', `${account(accountId)}/prompts`, { body: { promptId, promptName } })).body,
    prompt: (accountId: string, promptId: string) => get<PromptDetail>(prompt(accountId, promptId)),
    updatePromptDetails: async (accountId: string, promptId: string, change: PromptDetailsChange) =>
      (await call<PromptDetailsChange>('PATCH', prompt(accountId, promptId), { body: change })).body,
    deletePrompt: async (accountId: string, promptId: string) => {
      await call('POST', `${prompt(accountId, promptId)}/delete`);
    },
    restorePrompt: async (accountId: string, promptId: string) => {
      await call('POST', `${prompt(accountId, promptId)}/restore`);
    },

    version: async (accountId: string, promptId: string, v: string): Promise<StoredVersion> => {
      const { body, etag } = await call<StoredVersion>('GET', version(accountId, promptId, v));
      return { ...body, etag: etag ?? body.etag };
    },
    /** A new draft: `If-None-Match: *`, so an existing version is never overwritten. */
    createDraft: async (accountId: string, promptId: string, v: string, content: VersionContent): Promise<StoredVersion> => {
      const { body, etag } = await call<StoredVersion>('PUT', version(accountId, promptId, v), { body: content, headers: { 'If-None-Match': '*' } });
      return { ...body, etag: etag ?? body.etag };
    },
    /** Saves over the draft as it was read (`etag`): a 412 means someone saved in between. */
    saveDraft: async (accountId: string, promptId: string, v: string, content: VersionContent, etag: string): Promise<StoredVersion> => {
      const answer = await call<StoredVersion>('PUT', version(accountId, promptId, v), { body: content, headers: { 'If-Match': etag } });
      return { ...answer.body, etag: answer.etag ?? answer.body.etag };
    },
    deleteDraft: async (accountId: string, promptId: string, v: string, etag: string) => {
      await call('DELETE', version(accountId, promptId, v), { headers: { 'If-Match': etag } });
    },
    publish: async (accountId: string, promptId: string, v: string, etag: string, note: string) =>
      (await call<VersionSummary>('POST', `${version(accountId, promptId, v)}/publish`, { body: { note }, headers: { 'If-Match': etag } })).body,
    /**
     * Moves a label (200), or, where the account's approvals cover it, opens a change request instead (202): the
     * outcome says which. A restore is a move back to a version the label pointed at before, marked as such.
     */
    setLabel: async (accountId: string, promptId: string, label: string, v: string, options: { note?: string; restore?: boolean } = {}): Promise<LabelMove> => {
      const note = options.note?.trim();
      const answer = await call<{ request?: ChangeRequest } | undefined>('PUT', `${prompt(accountId, promptId)}/labels/${part(label)}`, {
        body: { version: v, ...(note ? { note } : {}), ...(options.restore ? { restore: true } : {}) },
      });
      return answer.status === 202 && answer.body?.request ? { kind: 'requested', request: answer.body.request } : { kind: 'moved' };
    },
    /** A label's moves, newest first, 50 a page; `before` is the `next` of the page before. */
    labelHistory: (accountId: string, promptId: string, label: string, before?: string) =>
      get<LabelHistoryPage>(`${prompt(accountId, promptId)}/labels/${part(label)}/history${before === undefined ? '' : `?before=${part(before)}`}`),
    /** Takes a label off (204), or, where the account's approvals cover it, opens a change request for that (202). */
    removeLabel: async (accountId: string, promptId: string, label: string): Promise<LabelRemoval> => {
      const answer = await call<{ request?: ChangeRequest } | undefined>('DELETE', `${prompt(accountId, promptId)}/labels/${part(label)}`);
      return answer.status === 202 && answer.body?.request ? { kind: 'requested', request: answer.body.request } : { kind: 'removed' };
    },

    /** The label's active rollout; undefined when it has none (404): an ended rollout lives on in the label's history. */
    rollout: async (accountId: string, promptId: string, label: string): Promise<Rollout | undefined> => {
      try {
        return (await get<{ rollout: Rollout }>(rolloutPath(accountId, promptId, label))).rollout;
      } catch (problem) {
        if (problem instanceof ApiProblem && problem.status === 404) return undefined;
        throw problem;
      }
    },
    /** Starts a rollout (201), or, where the account's approvals cover the label, opens a change request that carries it (202). */
    startRollout: async (accountId: string, promptId: string, label: string, start: RolloutStart): Promise<RolloutStartOutcome> => {
      const { note, ...rest } = start;
      const said = note?.trim();
      const answer = await call<{ rollout?: Rollout; request?: ChangeRequest }>('PUT', rolloutPath(accountId, promptId, label), {
        body: said ? { ...rest, note: said } : rest,
      });
      if (answer.status === 202 && answer.body?.request) return { kind: 'requested', request: answer.body.request };
      if (!answer.body?.rollout) throw new ApiProblem(answer.status, 'INTERNAL_ERROR', 'the answer carried no rollout');
      return { kind: 'started', rollout: answer.body.rollout };
    },
    /** Each change below names the rollout it is meant for: one that ended meanwhile (another on the label since) is a 409, and nothing changes. */
    changeRolloutShare: async (accountId: string, promptId: string, label: string, percent: number, rolloutId: string) =>
      (await call<{ rollout: Rollout }>('PATCH', rolloutPath(accountId, promptId, label), { body: { percent, rolloutId } })).body.rollout,
    completeRollout: async (accountId: string, promptId: string, label: string, rolloutId: string) =>
      (await call<{ rollout: Rollout }>('POST', `${rolloutPath(accountId, promptId, label)}/complete`, { body: { rolloutId } })).body.rollout,
    abortRollout: async (accountId: string, promptId: string, label: string, reason: string, rolloutId: string) =>
      (
        await call<{ rollout: Rollout }>('POST', `${rolloutPath(accountId, promptId, label)}/abort`, {
          body: reason.trim() ? { reason: reason.trim(), rolloutId } : { rolloutId },
        })
      ).body.rollout,

    keys: async (accountId: string) => (await get<{ keys: ApiKey[] }>(`${account(accountId)}/keys`)).keys,
    createKey: async (accountId: string, input: NewKey) => (await call<IssuedKey>('POST', `${account(accountId)}/keys`, { body: input })).body,
    updateKey: async (accountId: string, keyId: string, change: KeyChange) => (await call<ApiKey>('PATCH', key(accountId, keyId), { body: change })).body,
    rotateKey: async (accountId: string, keyId: string, graceSeconds: number) =>
      (await call<IssuedKey>('POST', `${key(accountId, keyId)}/rotate`, { body: { graceSeconds } })).body,
    revokeKey: async (accountId: string, keyId: string) => (await call<ApiKey>('POST', `${key(accountId, keyId)}/revoke`)).body,

    webhooks: async (accountId: string) => (await get<{ webhooks: Webhook[] }>(`${account(accountId)}/webhooks`)).webhooks,
    createWebhook: async (accountId: string, input: NewWebhook) =>
      (await call<IssuedWebhookSecret>('POST', `${account(accountId)}/webhooks`, { body: input })).body,
    updateWebhook: async (accountId: string, webhookId: string, change: WebhookChange) =>
      (await call<Webhook>('PATCH', webhook(accountId, webhookId), { body: change })).body,
    deleteWebhook: async (accountId: string, webhookId: string) => {
      await call('DELETE', webhook(accountId, webhookId));
    },
    rotateWebhookSecret: async (accountId: string, webhookId: string) =>
      (await call<IssuedWebhookSecret>('POST', `${webhook(accountId, webhookId)}/rotate`)).body,
    /** Sends a `webhook.test` event to this webhook alone (202): its delivery shows in the deliveries a moment later. */
    testWebhook: async (accountId: string, webhookId: string) =>
      (await call<{ eventId: string }>('POST', `${webhook(accountId, webhookId)}/test`)).body.eventId,
    /** The last 100 attempts, newest first. */
    webhookDeliveries: async (accountId: string, webhookId: string) =>
      (await get<{ deliveries: WebhookDelivery[] }>(`${webhook(accountId, webhookId)}/deliveries`)).deliveries,

    usage: (accountId: string, month: string) => get<Usage>(`${account(accountId)}/usage?month=${part(month)}`),

    members: async (accountId: string) => (await get<{ members: Member[] }>(`${account(accountId)}/members`)).members,
    addMember: async (accountId: string, email: string, role: Role) =>
      (await call<AddedMember>('POST', `${account(accountId)}/members`, { body: { email, role } })).body,
    setRole: async (accountId: string, userId: string, role: Role) =>
      (await call<Member>('PATCH', `${account(accountId)}/members/${part(userId)}`, { body: { role } })).body,
    removeMember: async (accountId: string, userId: string) => {
      await call('DELETE', `${account(accountId)}/members/${part(userId)}`);
    },

    /** The account's change requests, newest first (every open one; otherwise 50 a page); all states without one. */
    requests: (accountId: string, state?: string, before?: string) => {
      const query = new URLSearchParams();
      if (state) query.set('state', state);
      if (before !== undefined) query.set('before', before);
      const text = query.toString();
      return get<RequestsPage>(`${account(accountId)}/requests${text ? `?${text}` : ''}`);
    },
    request: (accountId: string, requestId: string) => get<RequestDetail>(`${account(accountId)}/requests/${part(requestId)}`),
    approveRequest: async (accountId: string, requestId: string, comment: string) =>
      (
        await call<{ request: ChangeRequest }>('POST', `${account(accountId)}/requests/${part(requestId)}/approve`, {
          body: comment.trim() ? { comment: comment.trim() } : {},
        })
      ).body.request,
    rejectRequest: async (accountId: string, requestId: string, comment: string) =>
      (
        await call<{ request: ChangeRequest }>('POST', `${account(accountId)}/requests/${part(requestId)}/reject`, {
          body: comment.trim() ? { comment: comment.trim() } : {},
        })
      ).body.request,
    withdrawRequest: async (accountId: string, requestId: string) =>
      (await call<{ request: ChangeRequest }>('POST', `${account(accountId)}/requests/${part(requestId)}/withdraw`, { body: {} })).body.request,

    /** A page of the audit log, narrowed by the filters given (actor, prompt, action, outcome, from, to). */
    audit: (accountId: string, before: string | undefined, filters: Readonly<Record<string, string>> = {}) => {
      const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== ''));
      if (before !== undefined) query.set('before', before);
      const text = query.toString();
      return get<AuditPage>(`${account(accountId)}/audit${text ? `?${text}` : ''}`);
    },
  };
}

export type Api = ReturnType<typeof createApi>;
