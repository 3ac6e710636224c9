import { parseSmokeOptions } from '../../admin/smoke/options';
import { formatReport } from '../../admin/smoke/report';

/** `npm run smoke`'s options and report (docs/deploy.md, "Check it from your machine"); the checks run in test/e2e/smoke.test.ts. */

const URL = 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod/';

test('--url and --key are all it needs; the label is production and the origin https://example.com unless given', () => {
  expect(parseSmokeOptions(['--url', URL, '--key', 'prs_x'], {})).toEqual({
    help: false,
    target: { apiUrl: URL, apiKey: 'prs_x', label: 'production', origin: 'https://example.com' },
  });
});

test('options may be written --name=value, and --label and --origin change the checks', () => {
  expect(parseSmokeOptions([`--url=${URL}`, '--key=prs_x', '--label=staging', '--origin=https://app.example.org'], {})).toEqual({
    help: false,
    target: { apiUrl: URL, apiKey: 'prs_x', label: 'staging', origin: 'https://app.example.org' },
  });
});

test('the key may come from PROMPTS_API_KEY; --key wins over it', () => {
  expect(parseSmokeOptions(['--url', URL], { PROMPTS_API_KEY: 'prs_env' })).toMatchObject({ target: { apiKey: 'prs_env' } });
  expect(parseSmokeOptions(['--url', URL, '--key', 'prs_arg'], { PROMPTS_API_KEY: 'prs_env' })).toMatchObject({ target: { apiKey: 'prs_arg' } });
});

test.each([
  [[], '--url is required: the ApiUrl output of cdk deploy'],
  [['--url', URL], '--key is required (or PROMPTS_API_KEY): an API key of an account with published prompts'],
  [
    ['--url', 'abc123.execute-api.eu-west-1.amazonaws.com', '--key', 'k'],
    `--url must be an http(s) URL, such as cdk deploy's ApiUrl output; got "abc123.execute-api.eu-west-1.amazonaws.com"`,
  ],
  [
    ['--url', URL, '--key', 'k', '--origin', 'https://app.example.org/page'],
    '--origin must be a web origin such as https://your.site; got "https://app.example.org/page"',
  ],
  [['--url', URL, '--key'], '--key needs a value'],
  [['--url', URL, '--key', '--label', 'staging'], '--key needs a value'],
  [['--url', URL, '--kee', 'k'], 'unknown option --kee (options: --url, --key, --label, --origin, --help)'],
])('%j is refused: %s', (args, error) => {
  expect(parseSmokeOptions(args, {})).toEqual({ error });
});

test('--help asks for the usage, whatever else is given', () => {
  expect(parseSmokeOptions(['--url', 'nonsense', '--help'], {})).toEqual({ help: true });
});

test('the report is one ✓ or ✗ line per check, names aligned, then how many failed', () => {
  const report = formatReport(URL, [
    { name: 'list', ok: true, detail: 'GET /prompts: 200, 3 prompt(s)' },
    { name: '401 for a bad key', ok: false, detail: 'GET /prompts with a key no account has answered 200, expected 401 UNAUTHORIZED' },
  ]);

  expect(report).toBe(
    [
      '✓ list               GET /prompts: 200, 3 prompt(s)',
      '✗ 401 for a bad key  GET /prompts with a key no account has answered 200, expected 401 UNAUTHORIZED',
      '',
      `1 of 2 checks failed against ${URL}`,
      '',
    ].join('\n'),
  );
});

test('when every check holds, the report says so', () => {
  expect(formatReport(URL, [{ name: 'list', ok: true, detail: 'ok' }])).toContain(`All 1 checks passed against ${URL}`);
});
