import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { USER_AGENT } from '../../lambda/webhook-delivery/sender';
import { generateSecret, sign } from '../../lambda/webhook-delivery/signature';

/**
 * docs/events.md "Verifying a delivery" shows receivers how to check a delivery in TypeScript and Python: those
 * very code blocks are run here against deliveries signed by sign(), so the documentation and the signer cannot
 * drift apart.
 */

const ROOT = join(__dirname, '../..');

function sample(language: 'ts' | 'python'): string {
  const doc = readFileSync(join(ROOT, 'docs/events.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Verifying a delivery'));
  const block = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1];
  if (!block) throw new Error(`docs/events.md "Verifying a delivery" has no ${language} block`);
  return block;
}

interface Case {
  readonly secret: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const [current, retired] = [generateSecret(), generateSecret()];
const body = JSON.stringify({ id: 'evt_20261127054200123_1a2b3c4d', type: 'webhook.test', data: { webhookId: 'wh_0123456789abcdef', note: 'café ✓' } });

function delivered(at: number, secrets: readonly string[], signedBody = body): Record<string, string> {
  const id = 'evt_20261127054200123_1a2b3c4d';
  return { 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': sign({ id, timestamp: at, body: signedBody }, secrets) };
}

/** Each with what a receiver must decide. */
function cases(): [string, Case, boolean][] {
  const now = Math.floor(Date.now() / 1000);
  const rotating = delivered(now, [current, retired]);
  return [
    ['signed with its secret', { secret: current, headers: delivered(now, [current]), body }, true],
    ['during a rotation, with the new secret', { secret: current, headers: rotating, body }, true],
    ['during a rotation, with the old secret', { secret: retired, headers: rotating, body }, true],
    ['another secret', { secret: generateSecret(), headers: rotating, body }, false],
    ['a body changed after signing', { secret: current, headers: delivered(now, [current]), body: body.replace('test', 'tests') }, false],
    ['signed 6 minutes ago', { secret: current, headers: delivered(now - 360, [current]), body }, false],
    ['no signature', { secret: current, headers: { ...delivered(now, [current]), 'webhook-signature': '' }, body }, false],
  ];
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'verification-samples-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the program with the cases on stdin; it prints one JSON list of verdicts. */
function verdicts(command: string, args: string[], inputs: Case[]): boolean[] {
  return JSON.parse(execFileSync(command, args, { cwd: ROOT, input: JSON.stringify(inputs), encoding: 'utf8', timeout: 60_000 })) as boolean[];
}

test('the TypeScript sample accepts what sign() signed with the receiver’s secret, and nothing else', () => {
  const file = join(dir, 'verify.ts');
  writeFileSync(
    file,
    `${sample('ts')}
import { readFileSync } from 'node:fs';
const inputs: { secret: string; headers: Record<string, string>; body: string }[] = JSON.parse(readFileSync(0, 'utf8'));
console.log(JSON.stringify(inputs.map(({ secret, headers, body }) => verifyWebhook(secret, headers, body))));
`,
  );
  const all = cases();
  expect(
    verdicts(
      process.execPath,
      ['--import', 'tsx', file],
      all.map(([, input]) => input),
    ),
  ).toEqual(all.map(([, , expected]) => expected));
});

test('the Python sample, standard library only, accepts what sign() signed with the receiver’s secret, and nothing else', () => {
  const file = join(dir, 'verify.py');
  writeFileSync(
    file,
    `${sample('python')}
import json
import sys

inputs = json.load(sys.stdin)
print(json.dumps([verify_webhook(i["secret"], i["headers"], i["body"].encode("utf-8")) for i in inputs]))
`,
  );
  const all = cases();
  expect(
    verdicts(
      'python3',
      ['-I', file],
      all.map(([, input]) => input),
    ),
  ).toEqual(all.map(([, , expected]) => expected));
});

test('the samples import nothing beyond the language’s own library', () => {
  expect(sample('ts').match(/from '([^']+)'/g)).toEqual(["from 'node:crypto'"]);
  expect(sample('python').match(/^(?:import|from) \S+/gm)).toEqual(['import base64', 'import hashlib', 'import hmac', 'import time']);
});

test('the Delivery section names the user-agent deliveries are sent with', () => {
  const doc = readFileSync(join(ROOT, 'docs/events.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Delivery'), doc.indexOf('## Verifying a delivery'));
  expect(section).toContain(`| \`user-agent\` | \`${USER_AGENT}\` |`);
});
