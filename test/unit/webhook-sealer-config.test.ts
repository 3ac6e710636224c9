import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadWebhookConfig } from '../../lambda/config';
import { LocalSecretSealer } from '../../lambda/webhook-delivery/secret-sealer';
import { localKeyFromFile, sealerFromConfig } from '../../lambda/webhook-delivery/sealer-from-config';

/** How the management functions seal webhook secrets, from their configuration (lambda/webhook-delivery/sealer-from-config.ts). */
const folder = mkdtempSync(join(tmpdir(), 'webhook-key-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

test('deliveries go to public https addresses unless the configuration says local', () => {
  expect(loadWebhookConfig({}).destinations).toBe('deployed');
  expect(loadWebhookConfig({ WEBHOOK_DESTINATIONS: 'local' }).destinations).toBe('local');
  expect(() => loadWebhookConfig({ WEBHOOK_DESTINATIONS: 'anywhere' })).toThrow(ConfigError);
});

test('without a KMS key or a local key file there is no sealer: webhooks cannot be created', () => {
  expect(sealerFromConfig(loadWebhookConfig({}))).toBeUndefined();
});

test('a missing local key file is created readable by its owner alone, and read back the same by the next start', async () => {
  const file = join(folder, 'data', 'webhook-sealing.key');
  const first = sealerFromConfig(loadWebhookConfig({ WEBHOOK_LOCAL_KEY_FILE: file }));
  expect(first).toBeInstanceOf(LocalSecretSealer);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(localKeyFromFile(file)).toHaveLength(32);
  const sealed = await first?.seal('whsec_c2VjcmV0');
  const next = sealerFromConfig(loadWebhookConfig({ WEBHOOK_LOCAL_KEY_FILE: file }));
  await expect(next?.unseal(sealed ?? '')).resolves.toBe('whsec_c2VjcmV0');
});
