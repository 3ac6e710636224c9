import type { AuditEntry } from '../features/audit/audit-text';
import type { ChangeRequest } from '../features/change-requests/change-requests';
import type { LabelHistoryEntry } from '../features/labels/history-text';
import type { Role } from '../logic/roles';
import type { Rollout, RolloutStep } from '../features/rollouts/rollouts';

/** The management API's answers (docs/management-api.md, "The management API"; openapi-management.yaml), as the dashboard reads them. */

export interface Membership {
  readonly accountId: string;
  readonly name: string;
  readonly plan: string;
  readonly role: Role;
}

export interface Me {
  readonly userId: string;
  readonly email: string;
  readonly accounts: readonly Membership[];
}

export interface AccountSettings {
  readonly accountId: string;
  readonly name: string;
  readonly plan: string;
  readonly protectedLabels: readonly string[];
  /** Which labels move only after others approve, and how many approvals each move needs; none when absent. */
  readonly approvals?: ApprovalSettings | null;
  readonly role?: Role;
}

export interface ApprovalSettings {
  readonly labels: readonly string[];
  readonly required: number;
}

export interface PromptListEntry {
  readonly promptId: string;
  readonly promptName: string;
  readonly description: string | null;
  readonly tags: readonly string[];
  readonly deleted: boolean;
  readonly latestVersion: string | null;
  readonly labels: Readonly<Record<string, string>>;
  readonly drafts: readonly string[];
  readonly updatedAt: string | null;
  readonly updatedBy: string | null;
}

export interface PromptDetailsChange {
  readonly promptName?: string;
  readonly description?: string | null;
  readonly tags?: readonly string[];
}

export interface VersionSummary {
  readonly version: string;
  readonly published: boolean;
  readonly publishedAt: string | null;
  readonly publishedBy: string | null;
  readonly note: string | null;
  readonly updatedAt: string | null;
  readonly updatedBy: string | null;
}

export interface PromptDetail extends Omit<PromptListEntry, 'drafts'> {
  readonly versions: readonly VersionSummary[];
}

export interface PromptConfig {
  readonly model: string;
  readonly temperature: number;
  readonly schema?: readonly unknown[];
  readonly inputData?: unknown;
  readonly inputDataRootName?: string | null;
  readonly [other: string]: unknown;
}

export interface VersionContent {
  readonly systemMessage: string;
  readonly userMessage: string;
  readonly config: PromptConfig;
}

export interface StoredVersion extends VersionContent {
  readonly version: string;
  readonly published: boolean;
  /** The strong ETag, quoted, as If-Match wants it back. */
  readonly etag: string;
  readonly updatedAt: string | null;
  readonly updatedBy: string | null;
}

export type KeyState = 'active' | 'disabled' | 'revoked' | 'expired';

export interface ApiKey {
  readonly keyId: string;
  readonly name: string | null;
  readonly displayPrefix: string | null;
  readonly state: KeyState | string;
  /** The limit in force: the key's own, or its plan's. */
  readonly limit?: number;
  readonly monthlyLimit: number | null;
  readonly scope: readonly string[] | null;
  readonly expiresAt: string | null;
  readonly createdAt: string | null;
  readonly createdBy: string | null;
  readonly usedThisMonth?: number;
}

/** The only answers that hold a key's secret: creating and rotating. */
export interface IssuedKey {
  readonly key: ApiKey;
  readonly apiKey: string;
  readonly retired?: ApiKey;
}

export interface NewKey {
  readonly name: string;
  readonly monthlyLimit?: number;
  readonly scope?: readonly string[];
  readonly expiresAt?: string;
}

export interface KeyChange {
  readonly name?: string;
  readonly monthlyLimit?: number | null;
  readonly scope?: readonly string[] | null;
  readonly expiresAt?: string | null;
  readonly disabled?: boolean;
}

export interface Member {
  readonly userId: string;
  readonly email: string;
  readonly role: Role;
  readonly addedAt?: string;
  readonly addedBy?: string;
}

export interface AddedMember {
  readonly member: Member;
  /** Only where the user pool sends no invitation (locally): shown once to whoever added the person. */
  readonly temporaryPassword?: string;
}

export interface KeyUsage {
  readonly keyId: string;
  readonly name: string | null;
  readonly used: number;
  readonly limit: number;
  /** Count per UTC day `"01"`-`"31"`; null for a month older than the days kept. */
  readonly days: Readonly<Record<string, number>> | null;
}

export interface Usage {
  readonly month: string;
  readonly keys: readonly KeyUsage[];
}

export interface AuditPage {
  readonly entries: readonly AuditEntry[];
  readonly next: string | null;
}

export type { ChangeRequest, LabelHistoryEntry };

export interface LabelHistoryPage {
  readonly entries: readonly LabelHistoryEntry[];
  readonly next?: string | null;
}

/** What a label move came to: moved at once, or a change request opened for others to approve. */
export type LabelMove = { readonly kind: 'moved' } | { readonly kind: 'requested'; readonly request: ChangeRequest };

/** A version as a request compares it: its messages and config. */
export interface RequestVersion extends VersionContent {
  readonly version: string;
}

/** A change request with what it would change: both versions (null: no version), and the variables added and removed. */
export interface RequestDetail {
  readonly request: ChangeRequest;
  readonly fromVersion: RequestVersion | null;
  readonly toVersion: RequestVersion | null;
  readonly placeholders: { readonly added: readonly string[]; readonly removed: readonly string[] };
}

export interface RequestsPage {
  readonly requests: readonly ChangeRequest[];
  readonly next?: string | null;
}

/** What a label removal came to: removed at once, or a change request opened. */
export type LabelRemoval = { readonly kind: 'removed' } | { readonly kind: 'requested'; readonly request: ChangeRequest };

export type { Rollout, RolloutStep };

/** What starting a rollout asks for (docs/rollouts.md). */
export interface RolloutStart {
  readonly to: string;
  readonly percent: number;
  readonly note?: string;
  readonly steps?: readonly RolloutStep[];
  readonly guardAlarm?: string;
}

/** What starting a rollout came to: started at once, or a change request opened that carries it. */
export type RolloutStartOutcome = { readonly kind: 'started'; readonly rollout: Rollout } | { readonly kind: 'requested'; readonly request: ChangeRequest };

/** A webhook as the API answers it (docs/events.md "Webhooks"): never a secret. */
export interface Webhook {
  readonly webhookId: string;
  readonly url: string;
  /** Event types, or exactly `["*"]`: every type, those added later too. */
  readonly events: readonly string[];
  readonly enabled: boolean;
  readonly description: string | null;
  readonly createdAt: string;
  readonly createdBy: string | null;
  readonly updatedAt: string | null;
  readonly secretRotatedAt: string | null;
  readonly previousSecretExpiresAt: string | null;
}

/** The only answers that hold a webhook's secret: creating and rotating. */
export interface IssuedWebhookSecret {
  readonly webhook: Webhook;
  readonly secret: string;
}

export interface NewWebhook {
  readonly url: string;
  readonly events: readonly string[];
  readonly description?: string;
}

export interface WebhookChange {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly enabled?: boolean;
  readonly description?: string | null;
}

/** One attempt to deliver an event to a webhook; `status` null when no answer came. */
export interface WebhookDelivery {
  readonly deliveryId: string;
  readonly eventId: string;
  readonly type: string;
  readonly attempt: number;
  readonly at: string;
  readonly status: number | null;
  readonly durationMs: number;
  readonly error?: string;
}
