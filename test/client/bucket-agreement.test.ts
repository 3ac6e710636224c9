import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { bucketOf as clientBucketOf, sideFor as clientSideFor } from '../../client/src/rollout';
import { bucketOf as serverBucketOf, sideFor as serverSideFor } from '../../lambda/domain/rollout-bucket';
import { CLIENT_PYTHON } from '../python/support/python';

/**
 * One bucket rule in three places (docs/rollouts.md): the server's (lambda/domain/rollout.ts, Node's
 * SHA-256), the TypeScript client's (client/src/rollout.ts, its own SHA-256, for browsers) and the Python
 * client's (prompt_retrieval/rollout.py, hashlib). A subject gets the same side from each, or a rollout
 * would move users between versions as they move between a server read and a client's cache.
 */
const ROLLOUT_ID = 'ro_20261127050000000_0a1b2c3d';
const PERCENTS = [0, 0.01, 33.33, 50, 99.99, 100];

/** A deterministic generator (mulberry32): the same random-looking subjects on every run. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const EDGE_CASES = [
  '',
  ' ',
  ':',
  `${ROLLOUT_ID}:`,
  'user-1',
  'USER-1',
  'Zoë',
  'Zoe\u0308', // the same name, decomposed: another string, another bucket
  '用户-7',
  'مستخدم',
  '😀',
  '👩‍👩‍👧‍👦',
  'a\u0000b',
  'line\nbreak',
  'tab\there',
  '\ud800', // a lone surrogate: UTF-8 writes U+FFFD in every implementation
  'x\udc00y',
  'x'.repeat(256),
  'é'.repeat(256),
  'long-'.repeat(2_000),
  '12345678-1234-5678-1234-567812345678',
];

const ALPHABET = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:@/+= ', 'é', 'ß', '中', 'ñ', '🙂', 'Ω'];

function subjects(count: number): string[] {
  const random = generator(39);
  const made = [...EDGE_CASES];
  while (made.length < count) {
    const length = 1 + Math.floor(random() * 40);
    let subject = '';
    for (let i = 0; i < length; i += 1) subject += ALPHABET[Math.floor(random() * ALPHABET.length)];
    made.push(random() < 0.3 ? `user-${Math.floor(random() * 1e9)}` : subject);
  }
  return made;
}

const SUBJECTS = subjects(10_000);
let python: { buckets: number[]; sides: string[] };

/** The Python client's rule over every subject in one run: JSON in on stdin, JSON out on stdout. */
function pythonBuckets(input: string): Promise<{ buckets: number[]; sides: string[] }> {
  return new Promise((done, fail) => {
    const child = spawn('python3', [join(__dirname, 'support', 'python_buckets.py'), join(CLIENT_PYTHON, 'src')], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => (code === 0 ? done(JSON.parse(output)) : fail(new Error(`python3 exited ${code}:\n${errors}`))));
    child.stdin.end(input);
  });
}

beforeAll(async () => {
  python = await pythonBuckets(JSON.stringify({ rolloutId: ROLLOUT_ID, subjects: SUBJECTS, percents: PERCENTS }));
}, 60_000);

test('the TypeScript client computes the same bucket as the server for 10,000 subjects', () => {
  const differ = SUBJECTS.filter((subject) => clientBucketOf(ROLLOUT_ID, subject) !== serverBucketOf(ROLLOUT_ID, subject));

  expect(differ).toEqual([]);
});

test('the Python client computes the same bucket as the server for 10,000 subjects', () => {
  const differ = SUBJECTS.filter((subject, index) => python.buckets[index] !== serverBucketOf(ROLLOUT_ID, subject));

  expect(python.buckets).toHaveLength(SUBJECTS.length);
  expect(differ).toEqual([]);
});

test.each(PERCENTS)('at %s%%, the server, the TypeScript client and the Python client give every subject the same side', (percent) => {
  const server = SUBJECTS.map((subject) => serverSideFor({ rolloutId: ROLLOUT_ID, percent }, subject)[0]).join('');
  const client = SUBJECTS.map((subject) => clientSideFor({ rolloutId: ROLLOUT_ID, percent }, subject)[0]).join('');

  expect(client).toBe(server);
  expect(python.sides[PERCENTS.indexOf(percent)]).toBe(server);
});

test('the sides split as the shares say: none at 0, all at 100, about a third at 33.33', () => {
  const toAt = (percent: number) => SUBJECTS.filter((subject) => serverSideFor({ rolloutId: ROLLOUT_ID, percent }, subject) === 'to').length;

  expect(toAt(0)).toBe(0);
  expect(toAt(100)).toBe(SUBJECTS.length);
  expect(toAt(33.33) / SUBJECTS.length).toBeGreaterThan(0.31);
  expect(toAt(33.33) / SUBJECTS.length).toBeLessThan(0.36);
});
