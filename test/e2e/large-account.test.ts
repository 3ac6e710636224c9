import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StackSet, type StackProcess, temporaryFolder } from './support/processes';
import { fetchApi } from './support/api-fetch';

/**
 * An account far bigger than one store page: 1,500 prompts x 3 published versions, seeded at start-up,
 * listed completely in one request. Messages are padded so heads and versions span several 1 MB pages.
 */

const PROMPTS = 1_500;
const VERSIONS = ['1.0.0', '1.1.0', '1.10.0'];
const API_KEY = 'prs_e2e_large_account_key';
const PADDING = 'x'.repeat(700);

const promptId = (i: number) => `prompt-${String(i).padStart(5, '0')}`;

const seed = {
  accounts: [
    {
      accountId: 'large',
      name: 'Large account',
      plan: 'pro',
      keys: [{ apiKey: API_KEY }],
      prompts: Array.from({ length: PROMPTS }, (_, i) => ({
        promptId: promptId(i),
        promptName: `Prompt ${i}`,
        versions: VERSIONS.map((version) => ({
          version,
          published: true,
          systemMessage: `System ${i} ${version} ${PADDING}`,
          userMessage: `Hello \${name}, this is ${promptId(i)} at ${version}`,
          config: { model: 'gpt-4o-mini', temperature: 0.5 },
        })),
      })),
    },
  ],
};

const stacks = new StackSet();
let folder: { path: string; remove(): Promise<void> };
let stack: StackProcess;

beforeAll(async () => {
  folder = await temporaryFolder('large-account-e2e');
  const seedPath = join(folder.path, 'large-seed.json');
  await writeFile(seedPath, JSON.stringify(seed));
  stack = await stacks.start({ DATA_DIR: join(folder.path, 'data'), SEED_FILE: seedPath });
}, 90_000);

afterAll(async () => {
  await stacks.stopAll();
  await folder.remove();
});

const list = async (query = '') => {
  const response = await fetchApi(`${stack.apiUrl}/prompts${query}`, { headers: { Authorization: `Bearer ${API_KEY}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { promptId: string; version: string; publishedVersions?: { version: string }[] }[];
};

it('seeds every version at start-up', () => {
  expect(stack.output()).toMatch(/1500 prompt\(s\), 4500 version\(s\)/);
  expect(stack.output()).toMatch(/versions 4500 created/);
});

it('lists all 1,500 prompts in one request, by promptId, each at its highest version', async () => {
  const prompts = await list();
  expect(prompts).toHaveLength(PROMPTS);
  expect(prompts.map((prompt) => prompt.promptId)).toEqual(Array.from({ length: PROMPTS }, (_, i) => promptId(i)));
  expect(new Set(prompts.map((prompt) => prompt.version))).toEqual(new Set(['1.10.0']));
});

it('lists every published version of every prompt with include_versions=true', async () => {
  const prompts = await list('?include_versions=true');
  expect(prompts).toHaveLength(PROMPTS);
  for (const prompt of prompts) {
    expect(prompt.publishedVersions?.map(({ version }) => version)).toEqual(VERSIONS);
  }
});
