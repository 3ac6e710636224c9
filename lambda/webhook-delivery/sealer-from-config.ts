import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { WebhookConfig } from '../config';
import { checkUrl, type Resolve, resolveWithDns } from './destination';
import { KmsSecretSealer } from './kms-secret-sealer';
import { LocalSecretSealer, type SecretSealer } from './secret-sealer';

/**
 * The one place that decides how webhook secrets are sealed: with the stack's KMS key when WEBHOOK_KEY_ID is set
 * (deployed), else with the key in WEBHOOK_LOCAL_KEY_FILE (npm start, tests), else not at all (webhooks cannot
 * be created or rotated: the operations say so).
 */
export function sealerFromConfig(config: WebhookConfig): SecretSealer | undefined {
  if (config.kmsKeyId !== undefined) return new KmsSecretSealer(config.kmsKeyId);
  if (config.localKeyFile !== undefined) return new LocalSecretSealer(localKeyFromFile(config.localKeyFile));
  return undefined;
}

/** npm start's key file in its data folder: the management functions seal with it, its deliveries unseal. */
export const WEBHOOK_KEY_FILE_NAME = 'webhook-sealing.key';

/** The local sealing key: the file's base64, or a new key written there readable by this user alone. */
export function localKeyFromFile(path: string): Buffer {
  try {
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(path), { recursive: true });
  try {
    // `wx`: of two processes starting at once, one writes the key and the other reads it.
    writeFileSync(path, `${LocalSecretSealer.generateKey().toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
  }
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
}

/** A file system error's code (`ENOENT`); not by `instanceof`, which fails for an error made in another realm. */
const codeOf = (error: unknown): unknown => (typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined);

/** What managing webhooks needs beyond the table (webhookToolsFromConfig below builds it from configuration). */
export interface WebhookTools {
  readonly sealer: SecretSealer;
  /** Whether deliveries may go to the URL, in the service's mode (destination.ts checkUrl). */
  readonly checkDestination: (url: string) => Promise<{ ok: true } | { ok: false; reason: string }>;
}

/** What the management operations need to manage webhooks, from configuration; `resolve` is DNS unless a test stubs it. */
export function webhookToolsFromConfig(config: WebhookConfig, resolve: Resolve = resolveWithDns): WebhookTools | undefined {
  const sealer = sealerFromConfig(config);
  if (!sealer) return undefined;
  return { sealer, checkDestination: (url) => checkUrl(url, config.destinations, resolve) };
}
