import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { preProcessFile } from 'typescript';
import { backoffMs, type RetryPolicy } from '../../lambda/models/retry';

/** lambda/models/ is the model layer: the only code that imports the model SDK and the key store's. */

const ROOT = path.join(__dirname, '../..');
const MODEL_PACKAGES = ['@aws-sdk/client-bedrock-runtime', '@aws-sdk/client-secrets-manager'];

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(relative);
    return /\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

test('only lambda/models/ imports the model SDK and Secrets Manager’s, of everything that ships or runs the service', () => {
  const importers = ['lambda', 'lib', 'local', 'admin', 'bin', 'bench', 'dashboard/src']
    .flatMap(sourceFiles)
    .filter((file) =>
      preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true).importedFiles.some(({ fileName }) => MODEL_PACKAGES.includes(fileName)),
    );
  expect(importers.filter((file) => !file.startsWith('lambda/models/'))).toEqual([]);
  expect(importers.sort()).toEqual(['lambda/models/api-keys.ts', 'lambda/models/bedrock-provider.ts']);
});

describe('throttling is waited out with full jitter', () => {
  const policy = (random: number): RetryPolicy => ({ attempts: 4, baseMs: 250, capMs: 4_000, random: () => random });

  test('each wait is a random share of a ceiling that doubles from the base', () => {
    expect([2, 3, 4, 5].map((next) => backoffMs(policy(1), next))).toEqual([250, 500, 1_000, 2_000]);
    expect(backoffMs(policy(0.5), 3)).toBe(250);
    expect(backoffMs(policy(0), 5)).toBe(0);
  });

  test('the ceiling stops at the cap, and the provider’s Retry-After is the least wait', () => {
    expect(backoffMs(policy(1), 12)).toBe(4_000);
    expect(backoffMs(policy(0), 2, 1_500)).toBe(1_500);
  });
});
