import { KMSClient } from '@aws-sdk/client-kms';
import { ConfigError } from '../config';
import { KmsSecretSealer } from './kms-secret-sealer';
import type { SecretSealer } from './secret-sealer';

/* A stand-in with webhook management's name (branch ev-manage), deployed form only; the merge takes ev-manage's file. */

export function sealerFromConfig(env: Readonly<Record<string, string | undefined>> = process.env): SecretSealer {
  const keyId = env.WEBHOOK_KEY_ID?.trim();
  if (!keyId) throw new ConfigError('Missing required environment variable WEBHOOK_KEY_ID');
  return new KmsSecretSealer(keyId, new KMSClient({ region: env.AWS_REGION?.trim() || 'us-east-1' }));
}
