import { DecryptCommand, EncryptCommand, KMSClient, type KMSClientConfig } from '@aws-sdk/client-kms';
import { SealedSecretError, SealerUnavailableError, type SecretSealer } from './secret-sealer';

/**
 * The deployed sealer (secret-sealer.ts): the stack's KMS key encrypts a webhook's secret when it is made and
 * decrypts it for each attempt. The management functions are granted Encrypt only and the delivery function
 * Decrypt only, so no function that faces people can read a secret back.
 */

/** `kms1:` + base64 of KMS's ciphertext blob (which names the key that made it). */
const KMS_PREFIX = 'kms1:';

/**
 * Bound into every ciphertext: a blob of this key made for another use does not open as a webhook secret.
 * Not the account and webhook: the secret is sealed before the webhook's item is written, and the sealer's
 * interface takes the secret alone.
 */
export const ENCRYPTION_CONTEXT = { purpose: 'webhook-secret' } as const;

/** KMS's answers for a blob that this key, with this context, will never open. */
const NOT_OPENING = new Set(['InvalidCiphertextException', 'IncorrectKeyException']);

/** KMS answers in milliseconds; beyond these a person creating a webhook gets a 503 to retry, not a hung request. */
export const KMS_CONNECTION_TIMEOUT_MS = 1_000;
export const KMS_REQUEST_TIMEOUT_MS = 3_000;

/**
 * Bounded like the table's client (lambda/table/client.ts): the SDK's default handler waits without limit.
 * `config`: where and as whom (a test's endpoint on 127.0.0.1); the time limits are not the caller's to change.
 */
export function createKmsClient(config: KMSClientConfig = {}): KMSClient {
  return new KMSClient({
    ...config,
    maxAttempts: 2,
    requestHandler: {
      connectionTimeout: KMS_CONNECTION_TIMEOUT_MS,
      requestTimeout: KMS_REQUEST_TIMEOUT_MS,
      // Without it, @smithy/node-http-handler 4.x only logs a warning when requestTimeout passes.
      throwOnRequestTimeout: true,
    },
  });
}

/** The SDK's name for a connection or request that passed its time limit. */
const isTimeout = (error: unknown): boolean => error instanceof Error && error.name === 'TimeoutError';

export class KmsSecretSealer implements SecretSealer {
  /** `keyId`: the stack's key (WEBHOOK_KEY_ID), its id or ARN. */
  constructor(
    private readonly keyId: string,
    private readonly kms: KMSClient = createKmsClient(),
  ) {}

  async seal(secret: string): Promise<string> {
    let CiphertextBlob: Uint8Array | undefined;
    try {
      ({ CiphertextBlob } = await this.kms.send(
        new EncryptCommand({ KeyId: this.keyId, Plaintext: Buffer.from(secret, 'utf8'), EncryptionContext: { ...ENCRYPTION_CONTEXT } }),
      ));
    } catch (error) {
      if (isTimeout(error)) throw new SealerUnavailableError('KMS did not answer in time', { cause: error });
      throw error;
    }
    if (!CiphertextBlob) throw new SealedSecretError('KMS returned no ciphertext');
    return KMS_PREFIX + Buffer.from(CiphertextBlob).toString('base64');
  }

  async unseal(sealed: string): Promise<string> {
    if (!sealed.startsWith(KMS_PREFIX)) throw new SealedSecretError('not a secret sealed by KMS');
    try {
      const { Plaintext } = await this.kms.send(
        new DecryptCommand({
          // Named, so a blob made under any other key is refused rather than opened.
          KeyId: this.keyId,
          CiphertextBlob: Buffer.from(sealed.slice(KMS_PREFIX.length), 'base64'),
          EncryptionContext: { ...ENCRYPTION_CONTEXT },
        }),
      );
      if (!Plaintext) throw new SealedSecretError('KMS returned no plaintext');
      return Buffer.from(Plaintext).toString('utf8');
    } catch (error) {
      // Other failures (throttling, no answer) may pass: they stay errors the caller retries.
      if (error instanceof Error && NOT_OPENING.has(error.name)) throw new SealedSecretError('the sealed secret does not open with this key');
      throw error;
    }
  }
}
