import { COMMANDS, runAdmin } from '../../admin/cli';

/** The admin CLI's contract with people and scripts, without a store: help, bad input, exit statuses. */

async function admin(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, {}, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

test.each(COMMANDS.map((command) => [command.words.join(' ')]))('%s --help shows its usage and exits 0', async (words) => {
  const result = await admin(...words.split(' '), '--help');
  expect(result.code).toBe(0);
  expect(result.stdout.startsWith(`Usage: npx prompts-admin ${words} `)).toBe(true);
  expect(result.stdout).toContain('--json');
  expect(result.stdout).toContain('Examples:');
});

test('--help alone lists every command and the store settings', async () => {
  const result = await admin('--help');
  expect(result.code).toBe(0);
  for (const command of COMMANDS) expect(result.stdout).toContain(command.words.join(' '));
  expect(result.stdout).toContain('TABLE_NAME');
});

test.each([
  [['accounts', 'create', '--plan', 'free'], 'admin: --name is required'],
  [['accounts', 'create', '--name', 'A', '--plan', 'gold'], 'admin: --plan must be one of free, pro'],
  [['accounts', 'create', '--name', 'A', '--plan', 'free', '--id', 'a#b'], 'admin: --id must be an account id: 1 to 64 characters of A-Z a-z 0-9 _ . -'],
  [['accounts', 'list', '--verbose'], 'admin: accounts list: unknown option --verbose (see --help)'],
  [['keys', 'create', '--acount', 'acme'], 'admin: keys create: unknown option --acount: did you mean --account? (see --help)'],
  [['keys', 'create', '--account'], 'admin: keys create: --account needs a value (see --help)'],
  [['keys', 'create', '--account', 'acme', '--monthly-limit', '-5'], 'admin: --monthly-limit must be a whole number of 0 or more'],
  [['keys', 'create', '--account', 'acme', '--monthly-limit', '1.5'], 'admin: --monthly-limit must be a whole number of 0 or more'],
  [
    ['prompts', 'publish', '--account', 'a', '--prompt', 'p', '--version', 'v1'],
    'admin: --version must be MAJOR.MINOR.PATCH (digits, no leading zeros, e.g. 1.2.0)',
  ],
  [
    ['prompts', 'publish', '--account', 'a', '--prompt', 'p', '--version', '1.0.0', '--file', 'x.json', '--model', 'm'],
    'admin: give the content either with --file or with options, not both',
  ],
  [
    ['prompts', 'publish', '--account', 'a', '--prompt', 'p', '--version', '1.0.0', '--model', 'm'],
    'admin: --system-message is required with the content options',
  ],
  [['prompts', 'import'], 'admin: prompts import: missing argument: prompts import <file-or-folder> [--dry-run] (see --help)'],
  [['usage', '--account', 'a', '--key', 'key_0123456789abcdef', '--month', '2026-13'], 'admin: --month must be YYYY-MM, e.g. 2026-11'],
  [['keys', 'frobnicate'], 'admin: keys: unknown action "frobnicate", expected one of create, list, set, rotate, revoke (see keys --help)'],
  [['teleport'], 'admin: unknown command "teleport": one of accounts, keys, prompts, usage, members, webhooks (see --help)'],
  [['accounts', 'list'], 'admin: Missing required environment variable TABLE_NAME'],
])('%j exits 2 with one line', async (argv, message) => {
  const result = await admin(...argv);
  expect(result).toEqual({ code: 2, stdout: '', stderr: `${message}\n` });
});

test('a key given where a key id belongs is refused without being repeated', async () => {
  const secret = 'prs_Zq1dW8vQmE2nR5tY7uI9oP0aS3dF6gH8jK1lZ4xC7v';
  const result = await admin('keys', 'revoke', '--account', 'acme', '--key', secret);
  expect(result.code).toBe(2);
  expect(result.stderr).not.toContain(secret);
});

test('with --json, an error is one JSON line on stderr', async () => {
  const result = await admin('accounts', 'create', '--json');
  expect(result.code).toBe(2);
  expect(JSON.parse(result.stderr)).toEqual({ error: '--name is required' });
});

test('with no arguments, it shows the help and exits 2', async () => {
  const result = await admin();
  expect(result.code).toBe(2);
  expect(result.stdout).toContain('Commands:');
});

test.each([...new Set(['__proto__', ...Object.getOwnPropertyNames(Object.prototype)])])(
  'an option named --%s is one more unknown option: exit 2, nothing done',
  async (name) => {
    for (const argv of [[`--${name}`], [`--${name}=1`], [`--${name}`, 'x']]) {
      const result = await admin('keys', 'create', '--account', 'acme', ...argv);
      expect(result).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(new RegExp(`^admin: keys create: unknown option --${name}\\b`)) });
    }
  },
);
