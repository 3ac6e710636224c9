import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  InvalidParameterException,
  InvalidPasswordException,
  ListUsersCommand,
  ResourceNotFoundException,
  UsernameExistsException,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { DEMO_EMAIL, ensureDemoUser } from '../../local/identity/demo-user';
import { type IdentityStandIn, startIdentityStandIn } from '../../local/identity/stand-in';
import { createTokenVerifier } from '../../local/identity/verify-token';
import { signIn } from '../support/oauth-sign-in';

/**
 * The stand-in's Cognito API, spoken to with the AWS SDK exactly as the user directory speaks to the
 * deployed pool, and its users kept in DATA_DIR across restarts.
 */

jest.setTimeout(30_000);

const CALLBACK = 'http://127.0.0.1:41903/';
let dataDir: string;
let standIn: IdentityStandIn;
let client: CognitoIdentityProviderClient;
let pool: { UserPoolId: string };

const clientFor = (endpoint: string) =>
  new CognitoIdentityProviderClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'identity-stand-in-'));
  standIn = await startIdentityStandIn({ dataDir, port: 0, callbackUrls: [CALLBACK] });
  client = clientFor(standIn.endpoint);
  pool = { UserPoolId: standIn.userPoolId };
});

afterAll(async () => {
  client.destroy();
  await standIn.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const attribute = (attributes: { Name?: string; Value?: string }[] | undefined, name: string) => attributes?.find((entry) => entry.Name === name)?.Value;

describe('the Cognito API subset', () => {
  it('AdminCreateUser makes an invited user named by its sub, with the email as given', async () => {
    const { User } = await client.send(
      new AdminCreateUserCommand({
        ...pool,
        Username: 'Ada@Example.com',
        UserAttributes: [
          { Name: 'email', Value: 'Ada@Example.com' },
          { Name: 'email_verified', Value: 'true' },
        ],
        TemporaryPassword: 'Temporary-Pass-123',
        MessageAction: 'SUPPRESS',
      }),
    );

    expect(User?.Username).toMatch(/^[0-9a-f-]{36}$/);
    expect(attribute(User?.Attributes, 'sub')).toBe(User?.Username);
    expect(attribute(User?.Attributes, 'email')).toBe('Ada@Example.com');
    expect(User?.UserStatus).toBe('FORCE_CHANGE_PASSWORD');
    expect(User?.Enabled).toBe(true);
    expect(User?.UserCreateDate).toBeInstanceOf(Date);
  });

  it('AdminCreateUser refuses an email that exists, in any case', async () => {
    await expect(client.send(new AdminCreateUserCommand({ ...pool, Username: 'ada@example.COM', MessageAction: 'SUPPRESS' }))).rejects.toBeInstanceOf(
      UsernameExistsException,
    );
  });

  it('AdminCreateUser refuses a temporary password the policy refuses, and a username that is not an email', async () => {
    await expect(
      client.send(new AdminCreateUserCommand({ ...pool, Username: 'weak@example.com', TemporaryPassword: 'weak', MessageAction: 'SUPPRESS' })),
    ).rejects.toBeInstanceOf(InvalidPasswordException);
    await expect(client.send(new AdminCreateUserCommand({ ...pool, Username: 'not-an-email', MessageAction: 'SUPPRESS' }))).rejects.toBeInstanceOf(
      InvalidParameterException,
    );
  });

  it('AdminGetUser finds a user by email or by sub, and names an unknown one', async () => {
    const byEmail = await client.send(new AdminGetUserCommand({ ...pool, Username: 'ada@example.com' }));
    const bySub = await client.send(new AdminGetUserCommand({ ...pool, Username: byEmail.Username }));

    expect(bySub.Username).toBe(byEmail.Username);
    expect(attribute(bySub.UserAttributes, 'email')).toBe('Ada@Example.com');
    await expect(client.send(new AdminGetUserCommand({ ...pool, Username: 'nobody@example.com' }))).rejects.toBeInstanceOf(UserNotFoundException);
  });

  it('ListUsers filters on one attribute, exactly or by prefix', async () => {
    await client.send(new AdminCreateUserCommand({ ...pool, Username: 'adam@example.org', MessageAction: 'SUPPRESS' }));

    const exact = await client.send(new ListUsersCommand({ ...pool, Filter: 'email = "ada@example.com"' }));
    const prefix = await client.send(new ListUsersCommand({ ...pool, Filter: 'email ^= "ada"' }));
    const none = await client.send(new ListUsersCommand({ ...pool, Filter: 'email = "ad"' }));

    expect(exact.Users?.map((user) => attribute(user.Attributes, 'email'))).toEqual(['Ada@Example.com']);
    expect(prefix.Users?.map((user) => attribute(user.Attributes, 'email'))).toEqual(['Ada@Example.com', 'adam@example.org']);
    expect(none.Users).toEqual([]);
    await expect(client.send(new ListUsersCommand({ ...pool, Filter: 'email contains "a"' }))).rejects.toBeInstanceOf(InvalidParameterException);
  });

  it('ListUsers pages with Limit and PaginationToken', async () => {
    const first = await client.send(new ListUsersCommand({ ...pool, Limit: 1 }));
    const second = await client.send(new ListUsersCommand({ ...pool, Limit: 1, PaginationToken: first.PaginationToken }));

    expect(first.Users).toHaveLength(1);
    expect(second.Users).toHaveLength(1);
    expect(second.Users?.[0]?.Username).not.toBe(first.Users?.[0]?.Username);
  });

  it('AdminSetUserPassword with Permanent confirms the user, and is held to the policy', async () => {
    await client.send(new AdminSetUserPasswordCommand({ ...pool, Username: 'adam@example.org', Password: 'Permanent-Pass-789', Permanent: true }));
    const user = await client.send(new AdminGetUserCommand({ ...pool, Username: 'adam@example.org' }));

    expect(user.UserStatus).toBe('CONFIRMED');
    await expect(
      client.send(new AdminSetUserPasswordCommand({ ...pool, Username: 'adam@example.org', Password: 'alllowercase12!', Permanent: true })),
    ).rejects.toBeInstanceOf(InvalidPasswordException);
  });

  it('AdminDeleteUser removes the user', async () => {
    await client.send(new AdminDeleteUserCommand({ ...pool, Username: 'adam@example.org' }));

    await expect(client.send(new AdminGetUserCommand({ ...pool, Username: 'adam@example.org' }))).rejects.toBeInstanceOf(UserNotFoundException);
  });

  it('answers for its own pool only', async () => {
    await expect(client.send(new AdminGetUserCommand({ UserPoolId: 'us-east-1_Other', Username: 'ada@example.com' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
  });

  it('keeps passwords only as salted hashes on disk', async () => {
    const text = await readFile(join(dataDir, 'identity', 'users.json'), 'utf8');

    expect(text).toContain('Ada@Example.com');
    expect(text).not.toContain('Temporary-Pass-123');
    expect(text).toMatch(/"passwordHash": "scrypt\$/);
  });
});

describe('ensureDemoUser', () => {
  it('makes the demo user once, with a strong password, and finds the same one again', async () => {
    const first = await ensureDemoUser({ endpoint: standIn.endpoint, userPoolId: standIn.userPoolId, dataDir });
    const again = await ensureDemoUser({ endpoint: standIn.endpoint, userPoolId: standIn.userPoolId, dataDir });

    expect(first.email).toBe(DEMO_EMAIL);
    expect(first.password).toMatch(/^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[^A-Za-z0-9]).{20}$/);
    expect(again).toEqual(first);
    const listed = await client.send(new ListUsersCommand({ ...pool, Filter: `email = "${DEMO_EMAIL}"` }));
    expect(listed.Users?.map((user) => [user.Username, user.UserStatus])).toEqual([[first.userId, 'CONFIRMED']]);
  });
});

describe('across a restart on the same DATA_DIR', () => {
  it('keeps the users, their passwords and the demo user, and signs them in with the same key', async () => {
    const demo = await ensureDemoUser({ endpoint: standIn.endpoint, userPoolId: standIn.userPoolId, dataDir });
    const before = await fetch(standIn.jwksUri).then((response) => response.json());
    await standIn.stop();

    standIn = await startIdentityStandIn({ dataDir, port: 0, callbackUrls: [CALLBACK] });
    client.destroy();
    client = clientFor(standIn.endpoint);

    const after = await fetch(standIn.jwksUri).then((response) => response.json());
    const demoAgain = await ensureDemoUser({ endpoint: standIn.endpoint, userPoolId: standIn.userPoolId, dataDir });
    const ada = await client.send(new AdminGetUserCommand({ ...pool, Username: 'ada@example.com' }));
    const target = { authorizeUrl: standIn.authorizeUrl, tokenUrl: standIn.tokenUrl, clientId: standIn.clientId, redirectUri: CALLBACK };
    const claims = await createTokenVerifier(standIn)(await signIn(target, demo.email, demo.password));

    expect(after).toEqual(before);
    expect(demoAgain).toEqual(demo);
    expect(attribute(ada.UserAttributes, 'email')).toBe('Ada@Example.com');
    expect(claims?.sub).toBe(demo.userId);
  });
});
