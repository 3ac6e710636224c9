import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { formatPromptFile, type PromptFile, PromptFileError, parsePromptFile } from '../../admin/prompt-files/prompt-file';

/** A prompt file (docs/prompts-as-code.md) says exactly what it was written from, whatever the messages hold. */

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.array(fc.string({ maxLength: 12 }), { maxLength: 6 }).map((lines) => lines.join('\n')),
);
const promptFile = fc.record({
  promptId: fc.constant('welcome-email'),
  promptName: fc.string({ minLength: 1, maxLength: 60 }).filter((name) => name.trim() !== ''),
  description: fc.option(fc.string({ minLength: 1, maxLength: 80 }), { nil: null }),
  tags: fc.uniqueArray(fc.stringMatching(/^[a-z0-9_-]{1,8}$/), { maxLength: 4 }).map((tags) => [...tags].sort()),
  version: fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20)).map((parts) => parts.join('.')),
  systemMessage: text,
  userMessage: text,
  config: fc.record({
    model: fc.string({ minLength: 1, maxLength: 20 }).filter((model) => model.trim() !== ''),
    temperature: fc.constantFrom(0, 0.3, 1, 2),
    schema: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 2 }),
    inputData: fc.jsonValue({ maxDepth: 2 }),
    inputDataRootName: fc.option(fc.string({ maxLength: 10 }), { nil: null }),
  }),
  labels: fc
    .dictionary(fc.stringMatching(/^[a-k][a-z0-9_-]{0,6}$/), fc.constant('1.0.0'))
    .map((labels) => Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)))),
});

test('a written file reads back as what it was written from, and writing it again gives the same bytes', () => {
  fc.assert(
    fc.property(promptFile, (file: PromptFile) => {
      const written = formatPromptFile(file);
      const read = parsePromptFile('prompts/welcome-email.prompt.yaml', written);
      expect(JSON.parse(JSON.stringify(read))).toEqual(JSON.parse(JSON.stringify(file)));
      expect(formatPromptFile(read)).toBe(written);
    }),
    { numRuns: 300 },
  );
});

test('a message of more than one line is written as a block scalar', () => {
  const written = formatPromptFile({
    promptId: 'p',
    promptName: 'P',
    description: null,
    tags: [],
    version: '1.0.0',
    systemMessage: 'one line',
    userMessage: 'first line\nsecond line ${name}',
    config: { model: 'm', temperature: 0.5, schema: [], inputData: null, inputDataRootName: null },
    labels: {},
  });
  expect(written).toMatch(/^userMessage: \|-?\n {2}first line\n {2}second line \$\{name\}$/m);
});

test.each([
  ['wrong.yaml', 'the file name must be <promptId>.prompt.yaml'],
  ['has space.prompt.yaml', 'the file name must be'],
])('a file named %s is refused', (name, message) => {
  expect(() => parsePromptFile(name, 'promptName: x\n')).toThrow(PromptFileError);
  expect(() => parsePromptFile(name, 'promptName: x\n')).toThrow(message);
});

test('YAML aliases are refused, so a small file cannot expand into a large one', () => {
  const bomb = 'promptName: &a x\nversion: 1.0.0\nsystemMessage: *a\nuserMessage: *a\nconfig: {model: m, temperature: 1}\n';
  expect(() => parsePromptFile('p.prompt.yaml', bomb)).toThrow(PromptFileError);
});

test("docs/prompts-as-code.md's example file is a prompt file", () => {
  const doc = readFileSync(join(__dirname, '../../docs/prompts-as-code.md'), 'utf8');
  const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  expect(parsePromptFile('welcome-email.prompt.yaml', blocks[0] ?? '')).toMatchObject({ version: '1.3.0', labels: { production: '1.2.0' } });
});

const GOOD = [
  'promptName: Welcome email',
  'version: 1.3.0',
  'systemMessage: You write short emails.',
  'userMessage: |-',
  '  Write to ${name}.',
  'config:',
  '  model: gpt-4o-mini',
  '  temperature: 0.7',
  'labels:',
  '  production: 1.3.0',
  '',
].join('\n');

/** The refusal of a file, as the operator reads it. */
function refusal(text: string): string {
  try {
    parsePromptFile('prompts/welcome-email.prompt.yaml', text);
  } catch (error) {
    if (error instanceof PromptFileError) return error.message;
    throw error;
  }
  throw new Error('the file was taken');
}

test('every problem of a file is listed, in the order of its lines, each at its line and column with the line shown', () => {
  const text = `${GOOD.replace('version: 1.3.0', 'version: 1.3').replace('temperature: 0.7', 'temperature: 7').replace('production:', 'Production:')}owner: me\n`;
  expect(refusal(text).split('\n')).toEqual([
    'prompts/welcome-email.prompt.yaml:2:10: version: must be a string',
    '  2 | version: 1.3',
    '    |          ^',
    'prompts/welcome-email.prompt.yaml:8:16: config.temperature: must be between 0 and 2',
    '  8 |   temperature: 7',
    '    |                ^',
    'prompts/welcome-email.prompt.yaml:10:3: labels.Production: a label is 1 to 32 of a-z 0-9 - _, starting with a letter, and not latest',
    '  10 |   Production: 1.3.0',
    '     |   ^',
    expect.stringMatching(/^prompts\/welcome-email\.prompt\.yaml:11:1: owner: unknown field/),
    '  11 | owner: me',
    '     | ^',
  ]);
});

test('a file with nothing in it lists each required field', () => {
  const fields = [...refusal('').matchAll(/^\S+:1:1: (\w+): is required$/gm)].map((match) => match[1]);
  expect(fields).toEqual(['promptName', 'version', 'systemMessage', 'userMessage', 'config']);
});

test.each([
  ['an unclosed [', `${GOOD}tags: [onboarding\nextra: 1\n`, 11, 7],
  ['an unclosed {', GOOD.replace('config:\n  model: gpt-4o-mini\n  temperature: 0.7', 'config: {model: gpt-4o-mini,\n  temperature: 0.7'), 6, 9],
  ['an unclosed quote', GOOD.replace('systemMessage: You', 'systemMessage: "You'), 3, 16],
])('a YAML syntax error is pointed at where the problem starts: %s', (_what, text, line, column) => {
  const [first, shown] = refusal(text).split('\n');
  expect(first).toMatch(new RegExp(`^prompts/welcome-email\\.prompt\\.yaml:${line}:${column}: not valid YAML: `));
  expect(shown).toBe(`  ${line} | ${text.split('\n')[line - 1]}`);
});

test('every YAML syntax error of a file is listed', () => {
  const text = `${GOOD.replace('version: 1.3.0', 'version: 1.3.0\nversion: 1.4.0')}tags: [a\n`;
  const problems = refusal(text)
    .split('\n')
    .filter((line) => line.startsWith('prompts/'));
  expect(problems).toEqual([
    expect.stringMatching(/:3:1: not valid YAML: Map keys must be unique/),
    expect.stringMatching(/:12:7: not valid YAML: Flow sequence/),
  ]);
});
