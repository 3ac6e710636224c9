import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AccountImport, PromptImport, PromptVersionInput } from './table/import-plan';
import { hashApiKey, isWellFormedApiKey, keyIdFromHash } from '../lambda/domain/api-key';
import { isPlan, type Plan, PLANS } from '../lambda/domain/plans';
import { isValidPromptId } from '../lambda/domain/prompt';
import { isValidScopeEntry, MAX_SCOPE_ENTRIES } from '../lambda/domain/prompt-scope';
import { isSettableLabel, LABEL_RULE } from '../lambda/domain/label';
import { isValidVersion } from '../lambda/domain/version';
import { parseInstant, SCOPE_ENTRY_RULE } from './key-settings';
import { ACCOUNT_ID_RULE, isValidAccountId } from '../lambda/domain/account-id';
import {
  at,
  fail,
  InputError,
  readArray,
  readObject,
  readOptionalArray,
  readOptionalBoolean,
  readOptionalCount,
  readOptionalString,
  readString,
} from './input-reader';
import { JsonSyntaxError, parseJsonText } from './json-text';
import { CONTENT_FIELDS, readContent, readVersionNumber } from './prompt-content';

/**
 * The seed file: what `npm start` loads and the admin CLI's `prompts import` takes.
 * `{"accounts":[{"accountId","name","plan","keys":[...],"prompts":[...]}]}`; see docs/cli.md "Seed file format".
 * Keys are plaintext here, for local development only, and become hashes before anything is stored.
 */

export interface SeedKey {
  apiKey: string;
  monthlyLimit?: number;
  revoked?: boolean;
  disabled?: boolean;
  /** Prompt ids and `prefix*` entries; absent for the whole account. */
  scope?: string[];
  /** An ISO 8601 instant from which the key is refused. */
  expiresAt?: string;
}

export interface SeedAccount {
  accountId: string;
  name?: string;
  plan?: Plan;
  keys: SeedKey[];
  prompts: PromptImport[];
}

export interface Seed {
  accounts: SeedAccount[];
}

export class SeedError extends Error {
  override readonly name = 'SeedError';
}

/** Characters of a key a listing may show: the `prs_` prefix and a few more, never enough to guess it. */
const DISPLAY_PREFIX_LENGTH = 8;

/** Reads a seed file, or every `*.json` file of a folder (in name order), as one seed. */
export async function readSeed(path: string): Promise<Seed> {
  return (await readSeedFiles(path)).seed;
}

/** What a seed was read from: a folder import tells the operator which of its entries it took and which not. */
export interface SeedSources {
  readonly read: readonly string[];
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
}

export async function readSeedFiles(path: string): Promise<{ seed: Seed; sources: SeedSources }> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new SeedError(`${path}: no such file or folder`);
  const sources = info.isDirectory() ? await folderEntries(path) : { read: [path], skipped: [] };
  if (sources.read.length === 0) {
    const skipped = sources.skipped.map((entry) => `${entry.path} (${entry.reason})`).join(', ');
    throw new SeedError(`${path}: the folder holds no .json file${skipped ? `; skipped ${skipped}` : ''}`);
  }
  const parts: { source: string; seed: Seed }[] = [];
  for (const file of sources.read) parts.push({ source: file, seed: parseSeed(await readFile(file, 'utf8'), file) });
  return { seed: mergeSeeds(parts), sources };
}

/** The folder's own `*.json` files, in name order; nothing below it, so a nested backup is never imported by surprise. */
async function folderEntries(folder: string): Promise<SeedSources> {
  const read: string[] = [];
  const skipped: { path: string; reason: string }[] = [];
  for (const name of (await readdir(folder)).sort()) {
    const path = join(folder, name);
    const info = await stat(path).catch(() => undefined);
    if (!info) skipped.push({ path, reason: 'cannot be read' });
    else if (info.isDirectory()) skipped.push({ path, reason: 'a folder: folders inside are not read' });
    else if (!name.endsWith('.json')) skipped.push({ path, reason: 'not a .json file' });
    else if (!info.isFile()) skipped.push({ path, reason: 'not a regular file' });
    else read.push(path);
  }
  return { read, skipped };
}

export function parseSeed(text: string, source: string): Seed {
  let json: unknown;
  try {
    json = parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new SeedError(`${source}: ${error.message}`);
    throw error;
  }
  try {
    return readSeedJson(json);
  } catch (error) {
    if (error instanceof InputError) throw new SeedError(`${source}: ${error.message}`);
    throw error;
  }
}

function readSeedJson(json: unknown): Seed {
  const root = readObject(json, '', ['$schema', 'accounts']);
  return { accounts: readArray(root.accounts, 'accounts').map((account, i) => readAccount(account, at('accounts', i))) };
}

function readAccount(value: unknown, path: string): SeedAccount {
  const account = readObject(value, path, ['accountId', 'name', 'plan', 'keys', 'prompts']);
  const accountId = readString(account, 'accountId', path);
  if (!isValidAccountId(accountId)) fail(at(path, 'accountId'), `must be ${ACCOUNT_ID_RULE}`);
  const name = readOptionalString(account, 'name', path, { nonEmpty: true, max: 256 });
  const plan = account.plan;
  if (plan !== undefined && !isPlan(plan)) fail(at(path, 'plan'), `must be one of ${PLANS.join(', ')}`);
  const prompts = readOptionalArray(account, 'prompts', path).map((prompt, i) => readPrompt(prompt, at(at(path, 'prompts'), i)));
  const seen = new Map<string, number>();
  prompts.forEach(({ promptId }, i) => {
    const first = seen.get(promptId);
    if (first !== undefined) fail(at(at(path, 'prompts'), i), `promptId ${promptId} already appears at prompts[${first}]`);
    seen.set(promptId, i);
  });
  return {
    accountId,
    ...(name === undefined ? {} : { name }),
    ...(plan === undefined ? {} : { plan }),
    keys: readOptionalArray(account, 'keys', path).map((key, i) => readKey(key, at(at(path, 'keys'), i))),
    prompts,
  };
}

function readKey(value: unknown, path: string): SeedKey {
  const key = readObject(value, path, ['apiKey', 'monthlyLimit', 'revoked', 'disabled', 'scope', 'expiresAt']);
  const apiKey = readString(key, 'apiKey', path);
  // Never echo the key: the message says what is wrong with it, not what it is.
  if (!isWellFormedApiKey(apiKey)) fail(at(path, 'apiKey'), 'must be 16 to 256 characters of A-Z a-z 0-9 - . _ ~ + / (then optional =)');
  const monthlyLimit = readOptionalCount(key, 'monthlyLimit', path);
  const revoked = readOptionalBoolean(key, 'revoked', path);
  const disabled = readOptionalBoolean(key, 'disabled', path);
  const scope = key.scope === undefined ? undefined : readScope(key.scope, at(path, 'scope'));
  const expiresAt = readOptionalString(key, 'expiresAt', path);
  if (expiresAt !== undefined && parseInstant(expiresAt) === undefined) {
    fail(at(path, 'expiresAt'), 'must be an ISO 8601 instant with a time zone, e.g. 2026-12-31T23:59:59Z');
  }
  return {
    apiKey,
    ...(monthlyLimit === undefined ? {} : { monthlyLimit }),
    ...(revoked === undefined ? {} : { revoked }),
    ...(disabled === undefined ? {} : { disabled }),
    ...(scope === undefined ? {} : { scope }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
}

function readScope(value: unknown, path: string): string[] {
  const entries = readArray(value, path);
  if (entries.length === 0 || entries.length > MAX_SCOPE_ENTRIES) {
    fail(path, `must list 1 to ${MAX_SCOPE_ENTRIES} prompt ids or prefixes (leave it out for the whole account)`);
  }
  return entries.map((entry, i) => {
    if (typeof entry !== 'string' || !isValidScopeEntry(entry)) fail(at(path, i), SCOPE_ENTRY_RULE);
    return entry;
  });
}

function readPrompt(value: unknown, path: string): PromptImport {
  const prompt = readObject(value, path, ['promptId', 'promptName', 'deleted', 'versions', 'labels']);
  const promptId = readString(prompt, 'promptId', path);
  if (!isValidPromptId(promptId)) fail(at(path, 'promptId'), 'must be 1 to 128 characters of A-Z a-z 0-9 _ . -');
  const deleted = readOptionalBoolean(prompt, 'deleted', path);
  const versions = readArray(prompt.versions ?? [], at(path, 'versions')).map((version, i) => readVersion(version, at(at(path, 'versions'), i)));
  const seen = new Map<string, number>();
  versions.forEach(({ version }, i) => {
    const first = seen.get(version);
    if (first !== undefined) fail(at(at(path, 'versions'), i), `version ${version} already appears at versions[${first}]`);
    seen.set(version, i);
  });
  const labels = prompt.labels === undefined ? undefined : readLabels(prompt.labels, at(path, 'labels'), versions);
  return {
    promptId,
    // Needed to create a prompt; an existing one keeps its stored name (the store says which it is).
    ...optional('promptName', readOptionalString(prompt, 'promptName', path, { nonEmpty: true, max: 256 })),
    ...(deleted === undefined ? {} : { deleted }),
    versions,
    ...(labels === undefined ? {} : { labels }),
  };
}

/**
 * `{"production": "1.0.0"}`: each label at a version this file publishes, or one the store has published
 * (the import checks that against the store, naming this file and field too).
 */
function readLabels(value: unknown, path: string, versions: readonly PromptVersionInput[]): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'must be an object of label: version');
  const labels: Record<string, string> = {};
  for (const [label, version] of Object.entries(value)) {
    const where = at(path, label);
    if (!isSettableLabel(label)) fail(where, `a label must be ${LABEL_RULE}; "latest" is reserved`);
    if (typeof version !== 'string' || !isValidVersion(version)) fail(where, 'must be a version, MAJOR.MINOR.PATCH (e.g. 1.2.0)');
    if (versions.some((listed) => listed.version === version && !listed.published)) {
      fail(where, `version ${version} is a draft in this file: only a published version can be labelled`);
    }
    labels[label] = version;
  }
  return labels;
}

function readVersion(value: unknown, path: string): PromptVersionInput {
  const version = readObject(value, path, ['version', 'published', ...CONTENT_FIELDS]);
  const number = readVersionNumber(version, path);
  const published = version.published;
  if (typeof published !== 'boolean') fail(at(path, 'published'), 'is required: true or false');
  return { version: number, published, ...readContent(version, path) };
}

interface Origin {
  source: string;
  path: string;
}

/**
 * One seed from several parts: an account may appear in many (say, one file per prompt), as long as
 * what they say of it agrees. A prompt or a key belongs in one place only.
 */
export function mergeSeeds(parts: readonly { source: string; seed: Seed }[]): Seed {
  const accounts = new Map<string, { account: SeedAccount; origin: Origin; prompts: Map<string, Origin> }>();
  const keys = new Map<string, Origin>();
  const where = (origin: Origin) => `${origin.source}: ${origin.path}`;

  for (const { source, seed } of parts) {
    seed.accounts.forEach((account, i) => {
      const origin = { source, path: at('accounts', i) };
      let merged = accounts.get(account.accountId);
      if (!merged) {
        merged = { account: { ...account, keys: [], prompts: [] }, origin, prompts: new Map() };
        accounts.set(account.accountId, merged);
      } else {
        for (const field of ['name', 'plan'] as const) {
          const [before, now] = [merged.account[field], account[field]];
          if (before !== undefined && now !== undefined && before !== now) {
            throw new SeedError(`${where(origin)}.${field}: "${now}" differs from ${where(merged.origin)}.${field} "${before}"`);
          }
          if (before === undefined && now !== undefined) merged.account = { ...merged.account, [field]: now };
        }
      }
      account.keys.forEach((key, k) => {
        const keyOrigin = { source, path: at(at(origin.path, 'keys'), k) };
        const earlier = keys.get(key.apiKey);
        if (earlier) throw new SeedError(`${where(keyOrigin)}: the same apiKey is already at ${where(earlier)}`);
        keys.set(key.apiKey, keyOrigin);
        merged.account.keys.push(key);
      });
      account.prompts.forEach((prompt, p) => {
        const promptOrigin = { source, path: at(at(origin.path, 'prompts'), p) };
        const earlier = merged.prompts.get(prompt.promptId);
        if (earlier) {
          throw new SeedError(`${where(promptOrigin)}: prompt ${prompt.promptId} is already at ${where(earlier)}`);
        }
        merged.prompts.set(prompt.promptId, promptOrigin);
        // What the store refuses later (a label on a version it has not published) names this place too.
        merged.account.prompts.push(prompt.labels === undefined ? prompt : { ...prompt, source: where(promptOrigin) });
      });
    });
  }
  return { accounts: [...accounts.values()].map(({ account }) => account) };
}

/** The seed as the store takes it: keys only as their hashes. */
export function toAccountImports(seed: Seed): AccountImport[] {
  return seed.accounts.map((account) => ({
    accountId: account.accountId,
    ...(account.name === undefined ? {} : { name: account.name }),
    ...(account.plan === undefined ? {} : { plan: account.plan }),
    keys: account.keys.map((key) => {
      const keyHash = hashApiKey(key.apiKey);
      return {
        keyHash,
        keyId: keyIdFromHash(keyHash),
        displayPrefix: key.apiKey.slice(0, DISPLAY_PREFIX_LENGTH),
        ...(key.monthlyLimit === undefined ? {} : { monthlyLimit: key.monthlyLimit }),
        ...(key.revoked === undefined ? {} : { revoked: key.revoked }),
        ...(key.disabled === undefined ? {} : { disabled: key.disabled }),
        ...(key.scope === undefined ? {} : { scope: key.scope }),
        ...(key.expiresAt === undefined ? {} : { expiresAt: parseInstant(key.expiresAt) }),
      };
    }),
    prompts: account.prompts,
  }));
}

export function seedCounts(seed: Seed): { accounts: number; keys: number; prompts: number; versions: number; labels: number } {
  const prompts = seed.accounts.flatMap((account) => account.prompts);
  return {
    accounts: seed.accounts.length,
    keys: seed.accounts.reduce((sum, account) => sum + account.keys.length, 0),
    prompts: prompts.length,
    versions: prompts.reduce((sum, prompt) => sum + prompt.versions.length, 0),
    labels: prompts.reduce((sum, prompt) => sum + Object.keys(prompt.labels ?? {}).length, 0),
  };
}

const optional = <K extends string, V>(name: K, value: V | undefined): Partial<Record<K, V>> =>
  (value === undefined ? {} : { [name]: value }) as Partial<Record<K, V>>;
