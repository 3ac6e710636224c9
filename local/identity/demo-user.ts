import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generatedPassword } from './cognito-api';

export interface DemoUser {
  /** The pool's `sub`: what the management API knows the person by. */
  readonly userId: string;
  readonly email: string;
  readonly password: string;
}

export interface DemoUserOptions {
  /** The stand-in's Cognito API endpoint and pool. */
  readonly endpoint: string;
  readonly userPoolId: string;
  readonly dataDir: string;
  readonly email?: string;
}

/** A reserved example domain: no mail can reach it, and nobody mistakes it for a person. */
export const DEMO_EMAIL = 'demo@example.com';
const FILE_NAME = 'demo-user.json';

/**
 * The demo user of `npm start`, made once per DATA_DIR through the Cognito API (as the user directory
 * makes people) with a password generated then and kept beside the stand-in's data. Every start finds the
 * same user and sets that password again, so the one `npm start` prints always signs in.
 */
export async function ensureDemoUser(options: DemoUserOptions): Promise<DemoUser> {
  const email = options.email ?? DEMO_EMAIL;
  const password = await demoPassword(join(options.dataDir, 'identity', FILE_NAME), email);
  const client = new CognitoIdentityProviderClient({
    endpoint: options.endpoint,
    region: 'us-east-1',
    // The stand-in checks no signature; the SDK insists on signing with something.
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const pool = { UserPoolId: options.userPoolId };
    let userId = await client.send(new AdminGetUserCommand({ ...pool, Username: email })).then(
      (user) => user.Username,
      (error: unknown) => {
        if (error instanceof UserNotFoundException) return undefined;
        throw error;
      },
    );
    if (userId === undefined) {
      const created = await client.send(
        new AdminCreateUserCommand({
          ...pool,
          Username: email,
          UserAttributes: [
            { Name: 'email', Value: email },
            { Name: 'email_verified', Value: 'true' },
          ],
          TemporaryPassword: password,
          MessageAction: 'SUPPRESS',
        }),
      );
      userId = created.User?.Username;
    }
    if (userId === undefined) throw new Error('the identity stand-in did not name the demo user');
    await client.send(new AdminSetUserPasswordCommand({ ...pool, Username: email, Password: password, Permanent: true }));
    return { userId, email, password };
  } finally {
    client.destroy();
  }
}

/** The password kept for this email, or a new one written down (owner-only) for the next start. */
async function demoPassword(path: string, email: string): Promise<string> {
  const kept = await readFile(path, 'utf8').then(
    (text) => JSON.parse(text) as { email?: unknown; password?: unknown },
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    },
  );
  if (kept && kept.email === email && typeof kept.password === 'string') return kept.password;
  const password = generatedPassword();
  await writeFile(path, `${JSON.stringify({ email, password }, null, 2)}\n`, { mode: 0o600 });
  return password;
}
