import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mergeSeeds, parseSeed, type Seed, SeedError, toAccountImports } from '../../admin/seed-file';
import { hashApiKey, keyIdFromHash } from '../../lambda/domain/api-key';

/** The seed file format: what is accepted, and the one-line message, with the field's path, for what is not. */

const version = (overrides: Record<string, unknown> = {}) => ({
  version: '1.0.0',
  published: true,
  systemMessage: 's',
  userMessage: 'Hi ${name}',
  config: { model: 'gpt-4o-mini', temperature: 0.7, schema: [], inputData: null, inputDataRootName: null },
  ...overrides,
});

const seedWith = (account: Record<string, unknown>) => JSON.stringify({ accounts: [{ accountId: 'acme', name: 'Acme', plan: 'free', ...account }] });

const withPrompt = (prompt: Record<string, unknown>) => seedWith({ prompts: [{ promptId: 'p', promptName: 'P', versions: [version()], ...prompt }] });
const withVersion = (overrides: Record<string, unknown>) => withPrompt({ versions: [version(), version({ version: '1.1.0', ...overrides })] });

function refusal(text: string): string {
  try {
    parseSeed(text, 'seed.json');
  } catch (error) {
    if (error instanceof SeedError) return error.message;
    throw error;
  }
  throw new Error('the seed was accepted');
}

test('the demo seed shipped in the repository is valid', async () => {
  const path = join(__dirname, '..', '..', 'seed', 'demo-seed.json');
  const seed = parseSeed(await readFile(path, 'utf8'), path);
  expect(seed.accounts.map((account) => account.accountId)).toEqual(['acct_demo']);
  expect(seed.accounts[0]?.prompts.flatMap((prompt) => prompt.versions).some((v) => !v.published)).toBe(true);
});

test('optional config fields take the defaults the API shows', () => {
  const seed = parseSeed(withPrompt({ versions: [version({ config: { model: 'm', temperature: 0 } })] }), 'seed.json');
  expect(seed.accounts[0]?.prompts[0]?.versions[0]?.config).toEqual({
    model: 'm',
    temperature: 0,
    schema: [],
    inputData: null,
    inputDataRootName: null,
  });
});

test.each([
  ['not JSON', '{"accounts": [', 'seed.json: not valid JSON at line 1, column 15: the text ends too early (is a closing bracket missing?)'],
  ['no accounts array', '{}', 'seed.json: accounts: must be an array'],
  ['an unknown top-level field', '{"accounts": [], "acounts": []}', 'seed.json: acounts: unknown field (expected one of $schema, accounts)'],
  ['a bad account id', seedWith({ accountId: 'a#b' }), 'seed.json: accounts[0].accountId: must be 1 to 64 characters of A-Z a-z 0-9 _ . -'],
  ['an unknown plan', seedWith({ plan: 'gold' }), 'seed.json: accounts[0].plan: must be one of free, pro'],
  [
    'a bad version',
    withVersion({ version: '1.01.0' }),
    'seed.json: accounts[0].prompts[0].versions[1].version: must be MAJOR.MINOR.PATCH (digits, no leading zeros, e.g. 1.2.0)',
  ],
  ['a missing published flag', withVersion({ published: undefined }), 'seed.json: accounts[0].prompts[0].versions[1].published: is required: true or false'],
  [
    'a temperature above 2',
    withVersion({ config: { model: 'm', temperature: 2.5 } }),
    'seed.json: accounts[0].prompts[0].versions[1].config.temperature: must be between 0 and 2',
  ],
  [
    'a schema that is not an array',
    withVersion({ config: { model: 'm', temperature: 1, schema: {} } }),
    'seed.json: accounts[0].prompts[0].versions[1].config.schema: must be an array',
  ],
  [
    'a numeric inputDataRootName',
    withVersion({ config: { model: 'm', temperature: 1, inputDataRootName: 3 } }),
    'seed.json: accounts[0].prompts[0].versions[1].config.inputDataRootName: must be a string or null',
  ],
  ['a missing model', withVersion({ config: { temperature: 1 } }), 'seed.json: accounts[0].prompts[0].versions[1].config.model: is required'],
  ['an unknown version field', withVersion({ publised: true }), /^seed\.json: accounts\[0\]\.prompts\[0\]\.versions\[1\]\.publised: unknown field/],
  ['a version twice', withVersion({ version: '1.0.0' }), 'seed.json: accounts[0].prompts[0].versions[1]: version 1.0.0 already appears at versions[0]'],
  ['a bad prompt id', withPrompt({ promptId: 'has space' }), 'seed.json: accounts[0].prompts[0].promptId: must be 1 to 128 characters of A-Z a-z 0-9 _ . -'],
  ['an empty prompt name', withPrompt({ promptName: ' ' }), 'seed.json: accounts[0].prompts[0].promptName: must not be empty'],
  [
    'a negative monthly limit',
    seedWith({ keys: [{ apiKey: 'prs_valid_key_0123456789', monthlyLimit: -1 }] }),
    'seed.json: accounts[0].keys[0].monthlyLimit: must be a whole number of 0 or more',
  ],
])('refuses %s', (_name, text, expected) => {
  if (typeof expected === 'string') expect(refusal(text)).toBe(expected);
  else expect(refusal(text)).toMatch(expected);
});

/** Arrays 'depth' levels deep, as text: JSON.stringify cannot write what is deepest here. */
const nestedText = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
const withDeep = (field: 'inputData' | 'schema', depth: number) =>
  withVersion({ config: { model: 'm', temperature: 1, [field]: '@deep@' } }).replace('"@deep@"', nestedText(depth));

test.each([
  ['inputData', 25],
  ['inputData', 100_000],
  ['schema', 25],
  ['schema', 100_000],
] as const)('refuses a config.%s nested %i levels deep, by the rule the management API applies', (field, depth) => {
  expect(refusal(withDeep(field, depth))).toBe(`seed.json: accounts[0].prompts[0].versions[1].config.${field}: must nest at most 24 levels deep`);
});

test('accepts inputData and schema nested 24 levels deep', () => {
  const text = withVersion({ config: { model: 'm', temperature: 1, inputData: '@deep@', schema: '@deep@' } }).replaceAll('"@deep@"', nestedText(24));
  const seed = parseSeed(text, 'seed.json');
  expect(seed.accounts[0]?.prompts[0]?.versions[1]?.config).toMatchObject({ inputData: JSON.parse(nestedText(24)), schema: JSON.parse(nestedText(24)) });
});

test('refuses a malformed key without repeating it', () => {
  const message = refusal(seedWith({ keys: [{ apiKey: 'short secret' }] }));
  expect(message).toMatch(/^seed\.json: accounts\[0\]\.keys\[0\]\.apiKey: must be 16 to 256 characters/);
  expect(message).not.toContain('short secret');
});

test('refuses a version too large for one store item', () => {
  expect(refusal(withVersion({ userMessage: 'x'.repeat(310 * 1024) }))).toMatch(
    /^seed\.json: accounts\[0\]\.prompts\[0\]\.versions\[1\]: content is \d+ KB, at most 300 KB fit one version$/,
  );
});

describe('several files as one seed', () => {
  const part = (source: string, account: Record<string, unknown>) => ({
    source,
    seed: parseSeed(JSON.stringify({ accounts: [{ accountId: 'acme', keys: [], prompts: [], ...account }] }), source),
  });

  test('merge one account from several files', () => {
    const merged: Seed = mergeSeeds([
      part('a.json', { name: 'Acme', plan: 'pro' }),
      part('b.json', { prompts: [{ promptId: 'p1', promptName: 'P1', versions: [version()] }] }),
      part('c.json', { plan: 'pro', prompts: [{ promptId: 'p2', promptName: 'P2', versions: [version()] }] }),
    ]);
    expect(merged.accounts).toHaveLength(1);
    expect(merged.accounts[0]).toMatchObject({ accountId: 'acme', name: 'Acme', plan: 'pro' });
    expect(merged.accounts[0]?.prompts.map((prompt) => prompt.promptId)).toEqual(['p1', 'p2']);
  });

  test('refuse files that disagree about an account', () => {
    expect(() => mergeSeeds([part('a.json', { plan: 'pro' }), part('b.json', { plan: 'free' })])).toThrow(
      'b.json: accounts[0].plan: "free" differs from a.json: accounts[0].plan "pro"',
    );
  });

  test('refuse the same prompt in two files', () => {
    const prompts = [{ promptId: 'p1', promptName: 'P1', versions: [version()] }];
    expect(() => mergeSeeds([part('a.json', { prompts }), part('b.json', { prompts })])).toThrow(
      'b.json: accounts[0].prompts[0]: prompt p1 is already at a.json: accounts[0].prompts[0]',
    );
  });

  test('refuse the same key twice, even in two accounts', () => {
    const keys = [{ apiKey: 'prs_valid_key_0123456789' }];
    expect(() => mergeSeeds([part('a.json', { keys }), part('b.json', { accountId: 'other', keys })])).toThrow(
      'b.json: accounts[0].keys[0]: the same apiKey is already at a.json: accounts[0].keys[0]',
    );
  });
});

test('keys reach the store only as their hash, id and display prefix', () => {
  const apiKey = 'prs_valid_key_0123456789';
  const [account] = toAccountImports(parseSeed(seedWith({ keys: [{ apiKey, monthlyLimit: 10 }] }), 'seed.json'));
  expect(account?.keys).toEqual([{ keyHash: hashApiKey(apiKey), keyId: keyIdFromHash(hashApiKey(apiKey)), displayPrefix: 'prs_vali', monthlyLimit: 10 }]);
  expect(JSON.stringify(account)).not.toContain(apiKey);
});

describe('labels', () => {
  test('a prompt may carry labels, each at a version', () => {
    const seed = parseSeed(withPrompt({ labels: { production: '1.0.0', 'canary-2': '1.1.0' } }), 'seed.json');
    expect(seed.accounts[0]?.prompts[0]?.labels).toEqual({ production: '1.0.0', 'canary-2': '1.1.0' });
  });

  test.each([
    [
      'a label on a draft of the file',
      { labels: { production: '1.1.0' } },
      'accounts[0].prompts[0].labels.production: version 1.1.0 is a draft in this file: only a published version can be labelled',
    ],
    ['the reserved name latest', { labels: { latest: '1.0.0' } }, 'accounts[0].prompts[0].labels.latest: a label must be 1 to 32 characters'],
    ['a name with capitals', { labels: { Production: '1.0.0' } }, 'accounts[0].prompts[0].labels.Production: a label must be'],
    ['a version that is not MAJOR.MINOR.PATCH', { labels: { production: '1.0' } }, 'accounts[0].prompts[0].labels.production: must be a version'],
    ['labels that are not an object', { labels: ['production'] }, 'accounts[0].prompts[0].labels: must be an object of label: version'],
  ])('refuses %s, naming the file and the field', (_name, prompt, message) => {
    const text = seedWith({ prompts: [{ promptId: 'p', promptName: 'P', versions: [version(), version({ version: '1.1.0', published: false })], ...prompt }] });
    expect(refusal(text)).toContain(`seed.json: ${message}`);
  });

  test('the import learns where each labelled prompt was read, to name it if the store refuses', () => {
    const seed = mergeSeeds([{ source: 'team/a.json', seed: parseSeed(withPrompt({ labels: { production: '1.0.0' } }), 'team/a.json') }]);
    expect(toAccountImports(seed)[0]?.prompts[0]?.source).toBe('team/a.json: accounts[0].prompts[0]');
  });
});
