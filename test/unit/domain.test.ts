import { isSettableLabel, isValidLabel, labelledVersion } from '../../lambda/domain/label';
import { nestsDeeperThan, textNestsDeeperThan } from '../../lambda/domain/content-rules';
import { API_KEY_PREFIX, generateApiKey, hashApiKey, isWellFormedApiKey, keyIdFromHash } from '../../lambda/domain/api-key';
import { monthlyLimitFor } from '../../lambda/domain/plans';
import { isValidPromptId } from '../../lambda/domain/prompt';
import { previousMonth, quotaPeriodAt, secondsUntil } from '../../lambda/domain/quota-period';
import { compareVersions, isValidVersion, versionSortKey } from '../../lambda/domain/version';
import { recordedUrl, urlsRecordedIn } from '../../lambda/domain/webhook-rules';

describe('versions', () => {
  test.each([['0.0.0'], ['1.2.3'], ['10.20.30'], ['999999999.999999999.999999999']])('%s is MAJOR.MINOR.PATCH', (v) => {
    expect(isValidVersion(v)).toBe(true);
  });

  test.each([['1.2'], ['1.2.3.4'], ['01.2.3'], ['1.02.3'], ['1.2.03'], ['1000000000.0.0'], ['1.2.3-rc.1'], ['1.2.3+build'], ['a.b.c'], ['']])(
    '%j is not',
    (v) => {
      expect(isValidVersion(v)).toBe(false);
    },
  );

  test('semantic-version order compares numbers, not strings: 1.10.0 > 1.9.0', () => {
    expect(compareVersions('1.10.0', '1.9.0')).toBe(1);
    expect(compareVersions('2.0.0', '10.0.0')).toBe(-1);
    expect(compareVersions('1.0.10', '1.0.9')).toBe(1);
    expect(compareVersions('3.1.4', '3.1.4')).toBe(0);
  });

  test('the sort key orders as bytes exactly as versions order semantically', () => {
    const versions = ['1.10.0', '1.9.0', '0.0.1', '10.0.0', '2.0.0', '1.9.10', '1.9.9', '999999999.0.0'];
    const bySemver = [...versions].sort(compareVersions);
    const byKey = [...versions].sort((a, b) => (versionSortKey(a) < versionSortKey(b) ? -1 : 1));
    expect(byKey).toEqual(bySemver);
  });
});

describe('prompt ids', () => {
  test.each([['a'], ['A-Z_a.z-09'], ['x'.repeat(128)]])('%j is valid', (id) => expect(isValidPromptId(id)).toBe(true));
  test.each([[''], ['x'.repeat(129)], ['a b'], ['a/b'], ['a#b'], ['é']])('%j is not', (id) => expect(isValidPromptId(id)).toBe(false));
});

describe('quota periods', () => {
  test('the month is the UTC calendar month, whatever the local time zone says', () => {
    expect(quotaPeriodAt(new Date('2026-11-30T23:59:59.999Z'))).toEqual({ month: '2026-11', day: '30', resetsAt: 1796083200 });
    expect(quotaPeriodAt(new Date('2026-12-01T00:00:00Z')).month).toBe('2026-12');
  });

  test('the month before, across the year end', () => {
    expect(previousMonth('2026-11')).toBe('2026-10');
    expect(previousMonth('2027-01')).toBe('2026-12');
  });

  test('reset is the first second of the next month, across the year end', () => {
    expect(quotaPeriodAt(new Date('2026-12-15T00:00:00Z')).resetsAt).toBe(Date.UTC(2027, 0, 1) / 1000);
    expect(quotaPeriodAt(new Date('2028-02-29T12:00:00Z')).resetsAt).toBe(Date.UTC(2028, 2, 1) / 1000);
  });

  test('seconds until reset are whole seconds, rounded up, never negative', () => {
    const resetsAt = Date.UTC(2026, 11, 1) / 1000;
    expect(secondsUntil(resetsAt, new Date('2026-11-30T23:59:59.200Z'))).toBe(1);
    expect(secondsUntil(resetsAt, new Date('2026-11-30T23:00:00Z'))).toBe(3600);
    expect(secondsUntil(resetsAt, new Date('2026-12-01T00:00:01Z'))).toBe(0);
  });
});

describe('plans', () => {
  test('free is 5,000 and pro 50,000 requests a month', () => {
    expect(monthlyLimitFor('free', undefined)).toBe(5_000);
    expect(monthlyLimitFor('pro', undefined)).toBe(50_000);
  });

  test("a key's own limit overrides the plan's, even when it is zero", () => {
    expect(monthlyLimitFor('pro', 10)).toBe(10);
    expect(monthlyLimitFor('free', 0)).toBe(0);
  });
});

describe('API keys', () => {
  test('a new key has the recognisable prefix and at least 128 bits of randomness', () => {
    const key = generateApiKey();
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
    const random = Buffer.from(key.slice(API_KEY_PREFIX.length), 'base64url');
    expect(random.length * 8).toBeGreaterThanOrEqual(128);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  test('keys do not repeat', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
  });

  test('the stored form is the SHA-256 hash, and the public id reveals only a prefix of that hash', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(keyIdFromHash(hashApiKey('abc'))).toBe('key_ba7816bf8f01cfea');
  });

  test.each([['short'], ['has space in it xxxxxxxxx'], ['x'.repeat(257)], ['ünïcödé-characters-here']])('%j is malformed', (key) => {
    expect(isWellFormedApiKey(key)).toBe(false);
  });
});

describe('label names', () => {
  test.each(['production', 'staging', 'canary-2', 'a', 'ab_c', `p${'x'.repeat(31)}`])('%s is a label name', (name) => {
    expect(isValidLabel(name)).toBe(true);
    expect(isSettableLabel(name)).toBe(true);
  });

  test.each(['', 'Production', '1st', '-prod', '_prod', 'prod.1', 'prod one', 'prod#1', `p${'x'.repeat(32)}`])('%j is not', (name) => {
    expect(isValidLabel(name)).toBe(false);
    expect(isSettableLabel(name)).toBe(false);
  });

  test('latest may be asked for, never set', () => {
    expect(isValidLabel('latest')).toBe(true);
    expect(isSettableLabel('latest')).toBe(false);
  });
});

describe('labels of a prompt', () => {
  test("only the labels map's own names count: constructor is a label, or absent like any other", () => {
    expect(labelledVersion({}, 'constructor')).toBeUndefined();
    expect(labelledVersion({ staging: '1.0.0' }, 'toString')).toBeUndefined();
    expect(labelledVersion(JSON.parse('{"constructor":"1.2.0"}'), 'constructor')).toBe('1.2.0');
    expect(labelledVersion(undefined, 'staging')).toBeUndefined();
  });
});

describe('how deep JSON nests', () => {
  const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  test.each([
    [null, 0],
    ['text', 0],
    [[], 1],
    [{}, 1],
    [{ a: [1, { b: null }] }, 3],
  ])('%j nests %i levels', (value, depth) => {
    expect(nestsDeeperThan(value, depth)).toBe(false);
    if (depth > 0) expect(nestsDeeperThan(value, depth - 1)).toBe(true);
  });

  test('a value a million levels deep is answered, never a stack overflow', () => {
    expect(nestsDeeperThan(JSON.parse(arrays(1_000_000)), 24)).toBe(true);
  });

  test.each([
    [arrays(3), 3, false],
    [arrays(4), 3, true],
    ['{"a":[{"b":1}]}', 3, false],
    ['{"a":[{"b":{}}]}', 3, true],
    ['["[[[[", "\\"[[[[", "\\\\"]', 1, false],
    ['"{{{{"', 0, false],
  ])('the text %s nests deeper than %i: %s (brackets in strings, escaped quotes included, do not count)', (text, max, deeper) => {
    expect(textNestsDeeperThan(text, max)).toBe(deeper);
  });
});

describe("a webhook URL for the record: its origin alone (docs/events.md 'Webhooks')", () => {
  test.each([
    ['https://hooks.slack.com/services/T000/B000/XXXX', 'https://hooks.slack.com'],
    ['https://alice:secret@hooks.example.com:8443/in?token=t#frag', 'https://hooks.example.com:8443'],
    ['http://127.0.0.1:9/hooks', 'http://127.0.0.1:9'],
    ['https://[::1]:9/x', 'https://[::1]:9'],
    ['mailto:someone@example.com', 'mailto:'],
    ['hooks.slack.com/services/T000/B000/XXXX', 'not an absolute URL'],
  ])('%s is recorded as %s', (url, recorded) => {
    expect(recordedUrl(url)).toBe(recorded);
  });

  test.each([[42], [null], [['https://hooks.example.com/secret']], [{ href: 'https://hooks.example.com/secret' }]])(
    '%j is not a URL, and says nothing of itself',
    (value) => {
      expect(recordedUrl(value)).toBe('not a URL');
    },
  );

  test('every URL in a text is cut to its origin, the words around it kept', () => {
    expect(urlsRecordedIn('connect to https://u:p@hooks.example.com/a/SECRET?x=1 failed; then "http://h:9/b?c" too')).toBe(
      'connect to https://hooks.example.com failed; then "http://h:9" too',
    );
    expect(urlsRecordedIn('no URL here: /api/accounts/acme/webhooks')).toBe('no URL here: /api/accounts/acme/webhooks');
    expect(urlsRecordedIn('https://@/SECRET')).toBe('a URL');
  });
});
