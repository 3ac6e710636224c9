import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * A webhook's signing secret must be usable (an HMAC needs the secret itself, not a hash of it) and never stored
 * in plaintext: it is stored sealed. Deployed, the stack's KMS key seals it (kms-secret-sealer.ts: the management
 * functions may only encrypt, the delivery function only decrypt); locally, a key file in npm start's data folder
 * does (below).
 */
export interface SecretSealer {
  seal(secret: string): Promise<string>;
  unseal(sealed: string): Promise<string>;
}

/** The local form: `local1:` + base64 of the 12-byte IV, the 16-byte tag and the ciphertext (AES-256-GCM). */
const LOCAL_PREFIX = 'local1:';

export class SealedSecretError extends Error {
  override readonly name = 'SealedSecretError';
}

/** The sealing key's service did not answer in time: it may next time (the management API answers 503). */
export class SealerUnavailableError extends Error {
  override readonly name = 'SealerUnavailableError';
}

/** AES-256-GCM under a 32-byte key held by this machine (npm start's data folder, or a test's). */
export class LocalSecretSealer implements SecretSealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SealedSecretError('the local sealing key must be 32 bytes');
  }

  static generateKey(): Buffer {
    return randomBytes(32);
  }

  async seal(secret: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return LOCAL_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
  }

  async unseal(sealed: string): Promise<string> {
    if (!sealed.startsWith(LOCAL_PREFIX)) throw new SealedSecretError('not a secret sealed by this machine');
    const raw = Buffer.from(sealed.slice(LOCAL_PREFIX.length), 'base64');
    if (raw.length < 29) throw new SealedSecretError('a sealed secret too short to hold one');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    try {
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedSecretError('the sealed secret does not open with this key');
    }
  }
}
