import { createHash, createPrivateKey, createPublicKey, generateKeyPair, type KeyObject, sign } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The public half as a JWKS entry, as Cognito publishes its keys. */
export interface PublicJwk {
  readonly kid: string;
  readonly kty: 'RSA';
  readonly alg: 'RS256';
  readonly use: 'sig';
  readonly n: string;
  readonly e: string;
}

export interface SigningKey {
  readonly jwk: PublicJwk;
  /** A compact JWS (RS256) of the claims, with this key's `kid`. */
  sign(claims: Readonly<Record<string, unknown>>): string;
}

const FILE_NAME = 'signing-key.pem';

/**
 * The stand-in's own RSA key, made once per DATA_DIR and kept there (readable by its owner only), so a
 * sign-in survives a restart. Never a key shipped in a package: one that everybody has signs anything.
 */
export async function loadOrCreateSigningKey(dir: string): Promise<SigningKey> {
  const path = join(dir, FILE_NAME);
  const kept = await readKey(path);
  if (kept) return signingKeyOf(kept);
  const privateKey = await new Promise<KeyObject>((resolve, reject) =>
    generateKeyPair('rsa', { modulusLength: 2048 }, (error, _publicKey, key) => (error ? reject(error) : resolve(key))),
  );
  try {
    await writeFile(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Two stacks on one DATA_DIR (both on DYNAMODB_ENDPOINT) started together: the first key written wins.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const winner = await readKey(path);
    if (!winner) throw error;
    return signingKeyOf(winner);
  }
  return signingKeyOf(privateKey);
}

async function readKey(path: string): Promise<KeyObject | undefined> {
  const pem = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  return pem === undefined ? undefined : createPrivateKey(pem);
}

function signingKeyOf(privateKey: KeyObject): SigningKey {
  const { n, e } = createPublicKey(privateKey).export({ format: 'jwk' });
  if (typeof n !== 'string' || typeof e !== 'string') throw new Error('the signing key is not an RSA key');
  const jwk: PublicJwk = { kid: thumbprint(n, e), kty: 'RSA', alg: 'RS256', use: 'sig', n, e };
  return {
    jwk,
    sign(claims) {
      const header = base64url(JSON.stringify({ kid: jwk.kid, alg: 'RS256' }));
      const payload = base64url(JSON.stringify(claims));
      const signature = sign('RSA-SHA256', Buffer.from(`${header}.${payload}`), privateKey).toString('base64url');
      return `${header}.${payload}.${signature}`;
    },
  };
}

/** RFC 7638: the key's id is the hash of its public members, so it changes exactly when the key does. */
function thumbprint(n: string, e: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ e, kty: 'RSA', n }))
    .digest('base64url');
}

const base64url = (text: string): string => Buffer.from(text).toString('base64url');
