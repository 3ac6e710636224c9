import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentDiff } from '../../admin/prompt-files/folder-plan';
import { driftReport } from '../../admin/prompt-files/drift-report';
import { formatPromptFile, type PromptFile, PromptFileError } from '../../admin/prompt-files/prompt-file';
import { folderWarnings, readPromptFolder } from '../../admin/prompt-files/prompt-folder';

/** A folder of prompt files (docs/prompts-as-code.md): what is read, what is refused, what is reported; and the diffs shown. */

const file: PromptFile = {
  promptId: 'welcome-email',
  promptName: 'Welcome email',
  description: null,
  tags: [],
  version: '1.0.0',
  systemMessage: 'You write short emails.',
  userMessage: 'Write to ${name}.\nSign as ${product}.',
  config: { model: 'gpt-4o-mini', temperature: 0.7, schema: [], inputData: null, inputDataRootName: null },
  labels: {},
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'prompt-folder-'));
  await writeFile(join(dir, 'welcome-email.prompt.yaml'), formatPromptFile(file));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function refusal(): Promise<string> {
  const error = await readPromptFolder(dir).catch((caught: unknown) => caught);
  if (!(error instanceof PromptFileError)) throw new Error('the folder was taken');
  return error.message;
}

test('a prompt file is read, and hidden names (.gitkeep) are skipped without a word', async () => {
  await writeFile(join(dir, '.gitkeep'), '');
  expect(await readPromptFolder(dir)).toEqual({ files: [expect.objectContaining({ promptId: 'welcome-email' })], warnings: [] });
});

test.each(['notes.txt', 'welcome.yaml', 'README.md'])('%s is not read, and a warning names it', async (name) => {
  await writeFile(join(dir, name), 'promptName: x\n');
  const folder = await readPromptFolder(dir);
  expect(folder.files.map((each) => each.promptId)).toEqual(['welcome-email']);
  expect(folder.warnings).toEqual([`${join(dir, name)}: not a prompt file (<promptId>.prompt.yaml), not read`]);
});

test('a subfolder is not read, and a warning names it', async () => {
  await mkdir(join(dir, 'drafts'));
  expect((await readPromptFolder(dir)).warnings).toEqual([`${join(dir, 'drafts')}: a folder, not read (prompt files are read from ${dir} itself)`]);
});

test.each([
  ['support.prompt.yml', 'support.prompt.yaml'],
  ['support.Prompt.YAML', 'support.prompt.yaml'],
  ['support.prompt.json', 'support.prompt.yaml'],
])('%s, meant as a prompt file, refuses the folder, saying what to rename it', async (name, meant) => {
  await writeFile(join(dir, name), formatPromptFile({ ...file, promptId: 'support' }));
  expect(await refusal()).toBe(`${join(dir, name)}: not read: a prompt file's name ends in .prompt.yaml (rename it ${meant})`);
});

test('every bad file and misnamed file is listed at once, with the warnings after them', async () => {
  await writeFile(join(dir, 'a.prompt.yml'), '');
  await writeFile(join(dir, 'b.prompt.yaml'), 'promptName: [\n');
  await writeFile(join(dir, 'notes.txt'), '');
  const lines = (await refusal()).split('\n').filter((line) => !line.startsWith('  '));
  expect(lines).toEqual([
    expect.stringContaining('a.prompt.yml: not read'),
    expect.stringMatching(/b\.prompt\.yaml:1:13: not valid YAML/),
    expect.stringMatching(/^warning: .*notes\.txt: not a prompt file/),
  ]);
});

test("what pull warns about: every name that is not a prompt file's, misnamed ones included", async () => {
  await writeFile(join(dir, 'a.prompt.yml'), '');
  await writeFile(join(dir, 'notes.txt'), '');
  expect(await folderWarnings(dir)).toEqual([expect.stringContaining('a.prompt.yml: not read'), expect.stringContaining('notes.txt: not a prompt file')]);
});

test('a dry run shows a unified diff: --- and +++ headers naming both sides, then @@ hunks', () => {
  const next = { ...file, version: '1.1.0', userMessage: 'Write to ${name}.\nSign as the ${product} team.' };
  const lines = contentDiff('welcome-email', file, next).split('\n');
  expect(lines.slice(0, 3)).toEqual([
    '--- welcome-email@1.0.0 (served)',
    '+++ welcome-email.prompt.yaml@1.1.0',
    expect.stringMatching(/^@@ -\d+,\d+ \+\d+,\d+ @@$/),
  ]);
  expect(lines).toContain('-Sign as ${product}.');
  expect(lines).toContain('+Sign as the ${product} team.');
});

test('a new prompt diffs against nothing published', () => {
  expect(contentDiff('welcome-email', undefined, file).split('\n').slice(0, 3)).toEqual([
    '--- welcome-email (nothing published)',
    '+++ welcome-email.prompt.yaml@1.0.0',
    expect.stringMatching(/^@@ -0,0 \+1,\d+ @@$/),
  ]);
});

test("the Markdown report fences a diff with more backticks than the prompt's own text holds", () => {
  const next = { ...file, version: '1.1.0', userMessage: 'Answer in ```json``` only.' };
  const markdown = driftReport(
    'Prompts',
    {
      changes: [
        { promptId: 'welcome-email', create: false, publish: { version: '1.1.0', diff: contentDiff('welcome-email', file, next) }, labels: [], pending: [] },
      ],
      unchanged: [],
      orphans: [],
      refused: [],
      pending: [],
    },
    [],
  );
  expect(markdown).toContain('\n````diff\n--- welcome-email@1.0.0 (served)\n');
  expect(markdown).toContain('+Answer in ```json``` only.\n');
});
