import { fromStoredContent } from '../../lambda/table/stored-content';
import type { AccountItem, ApiKeyItem, PromptHeadItem, PromptLabelItem, PromptVersionItem, WithKeys } from '../../lambda/table/item-types';
import { isSettableLabel, LABEL_RULE, labelledVersion } from '../../lambda/domain/label';
import type { PromptContent } from '../../lambda/domain/prompt';
import { canonicalJson } from '../../lambda/domain/canonical-json';
import { compareVersions } from '../../lambda/domain/version';
import type { Plan } from '../../lambda/domain/plans';
import type { Conflict } from '../../lambda/table/errors';
import type { HeadWrite } from './prompt-heads';
import { type AdminAccount, type AdminApiKey, accountItem, apiKeyItem, contentOf, versionItem, withFreshDayCounters } from '../../lambda/table/item-builders';
import { deletedPromptMessage } from '../../lambda/features/errors';

/**
 * What an import asks for, and what it takes to get there from what is stored: a pure function,
 * so every refusal is decided before the first write. A field the import leaves out is left as stored.
 */

export interface ApiKeyImport {
  keyHash: string;
  keyId: string;
  displayPrefix: string;
  monthlyLimit?: number;
  revoked?: boolean;
  /** Reversible, unlike revoked. */
  disabled?: boolean;
  scope?: string[];
  /** Epoch milliseconds. */
  expiresAt?: number;
}

export interface PromptVersionInput extends PromptContent {
  published: boolean;
}

export interface PromptImport {
  promptId: string;
  /** Required to create a prompt; an existing one keeps its name when absent. */
  promptName?: string;
  deleted?: boolean;
  versions: PromptVersionInput[];
  /** label -> version, each a version published (in the store or by this import). Labels not named are left as they are. */
  labels?: Record<string, string>;
  /** Where the prompt was read, e.g. `seed.json: accounts[0].prompts[2]`: refusals name it. */
  source?: string;
}

export interface AccountImport {
  accountId: string;
  /** Both are required to create an account; an existing one keeps what is not given. */
  name?: string;
  plan?: Plan;
  keys: ApiKeyImport[];
  prompts: PromptImport[];
}

/** What the planner needs to know of the store, for the accounts, keys and prompts an import names. */
export interface StoredState {
  readonly accounts: ReadonlyMap<string, AdminAccount>;
  /** By key hash. */
  readonly keys: ReadonlyMap<string, AdminApiKey>;
  /** By promptRef(accountId, promptId). */
  readonly heads: ReadonlyMap<string, PromptHeadItem>;
  /** By promptRef(accountId, promptId), then by version. */
  readonly versions: ReadonlyMap<string, ReadonlyMap<string, PromptVersionItem>>;
  /** The label items the import names, by labelRef(accountId, promptId, label). */
  readonly labels: ReadonlyMap<string, PromptLabelItem>;
}

export interface ChangeCount {
  created: number;
  updated: number;
  unchanged: number;
}

export interface ImportSummary {
  accounts: ChangeCount;
  keys: ChangeCount;
  prompts: ChangeCount;
  versions: ChangeCount;
  labels: ChangeCount;
}

/**
 * `strict` (operator imports): anything that contradicts the store refuses the whole import.
 * `create-missing` (the start-up seed): creates what the store lacks and leaves everything else as the
 * operator left it (published, revoked, deleted, restored), so the seed never fights what was done since.
 */
export type ImportMode = 'strict' | 'create-missing';

/** A label to point at a version, once the versions and heads are written (lambda/table/labels.ts). */
export interface LabelWrite {
  readonly accountId: string;
  readonly promptId: string;
  readonly label: string;
  readonly version: string;
}

export interface ImportPlan {
  readonly summary: ImportSummary;
  readonly conflicts: readonly Conflict[];
  /** In write order: accounts, versions, heads, labels, keys, so nothing points at what is not there yet. */
  readonly writes: {
    accounts: WithKeys<AccountItem>[];
    versions: WithKeys<PromptVersionItem>[];
    heads: HeadWrite[];
    labels: LabelWrite[];
    keys: WithKeys<ApiKeyItem>[];
  };
  /**
   * Accounts whose prompts change in any way the API can show (a version, a head, a label): their prompt
   * revision is raised once the writes are done, so containers drop what they keep of them.
   */
  readonly revisedAccounts: readonly string[];
}

export const promptRef = (accountId: string, promptId: string) => `${accountId}\u0000${promptId}`;
export const labelRef = (accountId: string, promptId: string, label: string) => `${accountId}\u0000${promptId}\u0000${label}`;

export function planImport(imports: readonly AccountImport[], stored: StoredState, now: string, mode: ImportMode = 'strict'): ImportPlan {
  const summary: ImportSummary = {
    accounts: zero(),
    keys: zero(),
    prompts: zero(),
    versions: zero(),
    labels: zero(),
  };
  const conflicts: Conflict[] = duplicatesIn(imports);
  const writes: ImportPlan['writes'] = { accounts: [], versions: [], heads: [], labels: [], keys: [] };
  const revisedAccounts = new Set<string>();

  for (const input of imports) {
    const storedAccount = stored.accounts.get(input.accountId);
    const account = mode === 'create-missing' && storedAccount ? { change: 'unchanged' as const } : planAccount(input, storedAccount, now);
    if ('conflict' in account) conflicts.push(account.conflict);
    else count(summary.accounts, account.change, account.item, writes.accounts);

    const accountPlan = input.plan ?? stored.accounts.get(input.accountId)?.plan;
    for (const key of input.keys) {
      // Without a plan the account itself is refused above; its keys wait for it.
      if (accountPlan === undefined) continue;
      if (mode === 'create-missing' && stored.keys.has(key.keyHash)) {
        summary.keys.unchanged += 1;
        continue;
      }
      const planned = planApiKey(input.accountId, accountPlan, key, stored.keys.get(key.keyHash), now);
      if ('conflict' in planned) conflicts.push(planned.conflict);
      else count(summary.keys, planned.change, planned.item, writes.keys);
    }

    for (const prompt of input.prompts) {
      const ref = promptRef(input.accountId, prompt.promptId);
      const storedHead = stored.heads.get(ref);
      const planned = planPrompt(input.accountId, prompt, storedHead, stored.versions.get(ref) ?? new Map(), stored.labels, mode);
      conflicts.push(...planned.conflicts);
      for (const version of planned.versions) {
        count(summary.versions, version.change, version.item, writes.versions);
        // A published version changes `publishedVersions` in the lists even when it does not move latest.
        if (version.item) revisedAccounts.add(input.accountId);
      }
      if (planned.head) {
        summary.prompts[planned.head.change] += 1;
        if (planned.head.write) writes.heads.push(planned.head.write);
        // Latest, a name, a new prompt or the deleted flag: what the API's cached answers hold.
        if (planned.head.write) revisedAccounts.add(input.accountId);
      }
      for (const label of planned.labels) {
        count(summary.labels, label.change, label.write, writes.labels);
        if (label.write) revisedAccounts.add(input.accountId);
      }
    }
  }
  return { summary, conflicts, writes, revisedAccounts: [...revisedAccounts] };
}

/** Each account, key, prompt and version once per import: two wishes for one item cannot both be met. */
function duplicatesIn(imports: readonly AccountImport[]): Conflict[] {
  const found: Conflict[] = [];
  const once = (seen: Set<string>, id: string, what: string) => {
    if (seen.has(id)) found.push({ kind: 'conflict', message: `${what} appears more than once in the import` });
    seen.add(id);
  };
  const accounts = new Set<string>();
  const apiKeys = new Set<string>();
  for (const input of imports) {
    once(accounts, input.accountId, `account ${input.accountId}`);
    for (const key of input.keys) once(apiKeys, key.keyHash, `API key ${key.keyId}`);
    const prompts = new Set<string>();
    for (const prompt of input.prompts) {
      once(prompts, prompt.promptId, `prompt ${prompt.promptId} of account ${input.accountId}`);
      const versions = new Set<string>();
      for (const version of prompt.versions) {
        once(versions, version.version, `version ${version.version} of prompt ${prompt.promptId}`);
      }
    }
  }
  return found;
}

type Change = keyof ChangeCount;
type Planned<T> = { change: Change; item?: T } | { conflict: Conflict };

function planAccount(input: AccountImport, stored: AdminAccount | undefined, now: string): Planned<WithKeys<AccountItem>> {
  if (!stored) {
    if (input.name === undefined || input.plan === undefined) {
      return missing(`account ${input.accountId} does not exist, and a name and a plan are needed to create it`);
    }
    return { change: 'created', item: accountItem(input.accountId, input.name, input.plan, now) };
  }
  const name = input.name ?? stored.name;
  const plan = input.plan ?? stored.plan;
  if (name === stored.name && plan === stored.plan) return { change: 'unchanged' };
  return { change: 'updated', item: accountItem(input.accountId, name, plan, stored.createdAt ?? now) };
}

function planApiKey(accountId: string, plan: string, input: ApiKeyImport, stored: AdminApiKey | undefined, now: string): Planned<WithKeys<ApiKeyItem>> {
  if (!stored) {
    const revoked = input.revoked === true;
    return {
      change: 'created',
      item: withFreshDayCounters(
        apiKeyItem(input.keyHash, {
          keyId: input.keyId,
          accountId,
          plan,
          displayPrefix: input.displayPrefix,
          status: revoked ? 'revoked' : input.disabled === true ? 'disabled' : 'active',
          monthlyLimit: input.monthlyLimit,
          scope: input.scope,
          expiresAt: input.expiresAt,
          createdAt: now,
          revokedAt: revoked ? now : undefined,
        }),
        now,
      ),
    };
  }
  if (stored.accountId !== accountId) {
    return conflict(`API key ${input.keyId} belongs to account ${stored.accountId}, not ${accountId}`);
  }
  if (input.revoked === false && stored.status === 'revoked') {
    return conflict(`API key ${input.keyId} of account ${accountId} is revoked, and revocation is final`);
  }
  const revokeNow = input.revoked === true && stored.status !== 'revoked';
  const status = stored.status === 'revoked' || revokeNow ? 'revoked' : input.disabled === undefined ? stored.status : input.disabled ? 'disabled' : 'active';
  const next: AdminApiKey = {
    ...stored,
    plan,
    displayPrefix: input.displayPrefix,
    status,
    monthlyLimit: input.monthlyLimit ?? stored.monthlyLimit,
    scope: input.scope ?? stored.scope,
    expiresAt: input.expiresAt ?? stored.expiresAt,
    createdAt: stored.createdAt ?? now,
    revokedAt: revokeNow ? now : stored.revokedAt,
  };
  const changed =
    next.status !== stored.status ||
    next.plan !== stored.plan ||
    next.monthlyLimit !== stored.monthlyLimit ||
    next.displayPrefix !== stored.displayPrefix ||
    next.expiresAt !== stored.expiresAt ||
    (next.scope ?? []).join(',') !== (stored.scope ?? []).join(',');
  return changed ? { change: 'updated', item: apiKeyItem(input.keyHash, next) } : { change: 'unchanged' };
}

interface PlannedPrompt {
  conflicts: Conflict[];
  versions: { change: Change; item?: WithKeys<PromptVersionItem> }[];
  head?: { change: Change; write?: HeadWrite };
  labels: { change: Change; write?: LabelWrite }[];
}

function planPrompt(
  accountId: string,
  input: PromptImport,
  storedHead: PromptHeadItem | undefined,
  storedVersions: ReadonlyMap<string, PromptVersionItem>,
  storedLabels: StoredState['labels'],
  mode: ImportMode,
): PlannedPrompt {
  const conflicts: Conflict[] = [];
  const versions: PlannedPrompt['versions'] = [];
  const merged = new Map<string, PromptVersionItem>(storedVersions);
  const label = `prompt ${input.promptId} of account ${accountId}`;
  let publishes = false;

  for (const version of input.versions) {
    const stored = storedVersions.get(version.version);
    if (stored && mode === 'create-missing') {
      versions.push({ change: 'unchanged' });
      continue;
    }
    if (stored?.published) {
      if (!version.published) {
        conflicts.push({
          kind: 'immutable',
          message: `version ${version.version} of ${label} is published and cannot be unpublished`,
        });
      } else if (!sameContent(fromStoredContent(stored), version)) {
        conflicts.push({
          kind: 'immutable',
          message: `version ${version.version} of ${label} is published and cannot change: publish a new version instead`,
        });
      } else {
        versions.push({ change: 'unchanged' });
      }
      continue;
    }
    const item = versionItem(accountId, input.promptId, version);
    merged.set(version.version, item);
    publishes ||= version.published;
    if (!stored) versions.push({ change: 'created', item });
    else if (stored.published !== version.published || !sameContent(fromStoredContent(stored), version)) {
      versions.push({ change: 'updated', item });
    } else versions.push({ change: 'unchanged' });
  }

  const keepStored = mode === 'create-missing' && storedHead !== undefined;
  const promptName = keepStored ? storedHead.promptName : (input.promptName ?? storedHead?.promptName);
  if (promptName === undefined) {
    conflicts.push({ kind: 'missing', message: `${label} does not exist, and a name is needed to create it` });
    return { conflicts, versions, labels: [] };
  }
  const deleted = keepStored ? storedHead.deleted : (input.deleted ?? storedHead?.deleted ?? false);
  if (mode === 'strict' && publishes && storedHead?.deleted === true && deleted) {
    conflicts.push({ kind: 'conflict', message: deletedPromptMessage(accountId, input.promptId) });
  }
  const latest = [...merged.values()].filter((version) => version.published).sort((a, b) => compareVersions(b.version, a.version))[0];
  const latestContent = latest ? contentOf(fromStoredContent(latest)) : undefined;
  const storedLatest = storedHead?.latest ? contentOf(fromStoredContent(storedHead.latest)) : undefined;
  const write: HeadWrite = {
    accountId,
    promptId: input.promptId,
    ...(promptName !== storedHead?.promptName ? { promptName } : {}),
    ...(deleted !== storedHead?.deleted ? { deleted } : {}),
    ...(latestContent && canonicalJson(latestContent) !== canonicalJson(storedLatest ?? null) ? { latest: latestContent } : {}),
    ...(storedLatest ? { seenLatestVersion: storedLatest.version } : {}),
  };
  const labels = planLabels(accountId, input, storedHead, merged, storedLabels, deleted, mode);
  conflicts.push(...labels.conflicts);
  if (!storedHead) return { conflicts, versions, head: { change: 'created', write }, labels: labels.planned };
  const same = write.promptName === undefined && write.deleted === undefined && write.latest === undefined;
  return { conflicts, versions, head: same ? { change: 'unchanged' } : { change: 'updated', write }, labels: labels.planned };
}

/**
 * Each label the import names must point at a version that is published once the import is done. One
 * that already points there (head and label item alike) is left alone, so importing again writes nothing.
 */
function planLabels(
  accountId: string,
  input: PromptImport,
  storedHead: PromptHeadItem | undefined,
  versions: ReadonlyMap<string, PromptVersionItem>,
  storedLabels: StoredState['labels'],
  deleted: boolean,
  mode: ImportMode,
): { conflicts: Conflict[]; planned: PlannedPrompt['labels'] } {
  const conflicts: Conflict[] = [];
  const planned: PlannedPrompt['labels'] = [];
  const where = (label: string) => (input.source ? `${input.source}.labels.${label}` : `label ${label} of prompt ${input.promptId} of account ${accountId}`);
  for (const [label, version] of Object.entries(input.labels ?? {})) {
    const storedVersion = labelledVersion(storedHead?.labels, label);
    const item = storedLabels.get(labelRef(accountId, input.promptId, label));
    if (storedVersion === version && item?.labelled.version === version) {
      planned.push({ change: 'unchanged' });
      continue;
    }
    // The start-up seed labels only prompts whose labels no one has touched: it never moves or brings
    // back a label an operator moved or removed since, nor labels a deleted prompt.
    if (mode === 'create-missing' && (storedHead?.labelsRevision !== undefined || deleted)) {
      planned.push({ change: 'unchanged' });
      continue;
    }
    if (!isSettableLabel(label)) {
      conflicts.push({ kind: 'conflict', message: `${where(label)}: a label must be ${LABEL_RULE}, and not "latest"` });
    } else if (versions.get(version)?.published !== true) {
      const state = versions.has(version) ? 'a draft' : 'not a stored version';
      conflicts.push({
        kind: 'conflict',
        message: `${where(label)}: version ${version} of prompt ${input.promptId} is ${state}: only a published version can be labelled`,
      });
    } else if (deleted) {
      conflicts.push({ kind: 'conflict', message: `${where(label)}: ${deletedPromptMessage(accountId, input.promptId)}` });
    } else {
      planned.push({
        change: storedVersion === undefined ? 'created' : 'updated',
        write: { accountId, promptId: input.promptId, label, version },
      });
    }
  }
  return { conflicts, planned };
}

export function sameContent(a: PromptContent, b: PromptContent): boolean {
  return canonicalJson(contentOf(a)) === canonicalJson(contentOf(b));
}

const zero = (): ChangeCount => ({ created: 0, updated: 0, unchanged: 0 });

function count<T>(counts: ChangeCount, change: Change, item: T | undefined, writes: T[]): void {
  counts[change] += 1;
  if (item) writes.push(item);
}

const conflict = (message: string): Planned<never> => ({ conflict: { kind: 'conflict', message } });
const missing = (message: string): Planned<never> => ({ conflict: { kind: 'missing', message } });
