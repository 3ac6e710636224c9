import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  CognitoIdentityProviderClient,
  ListUsersCommand,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { mockClient } from 'aws-sdk-client-mock';
import { CognitoUserDirectory } from '../../lambda/users/cognito-user-directory';

/** The user directory's calls to the Cognito API (the local stand-in speaks the same), over a mocked SDK. */
const cognito = mockClient(CognitoIdentityProviderClient);
beforeEach(() => cognito.reset());

const attributes = (sub: string, email: string) => [
  { Name: 'sub', Value: sub },
  { Name: 'email', Value: email },
];

const directory = (invitations: 'cognito-email' | 'return-temporary-password') =>
  new CognitoUserDirectory({ userPoolId: 'us-east-1_Pool', region: 'us-east-1', invitations });

test('finds a user by email with a ListUsers filter, on the lower-cased address', async () => {
  cognito.on(ListUsersCommand).resolves({ Users: [{ Attributes: attributes('sub-1', 'ada@example.com') }] });
  expect(await directory('cognito-email').findByEmail(' Ada@Example.com ')).toEqual({ userId: 'sub-1', email: 'ada@example.com' });
  expect(cognito.commandCalls(ListUsersCommand)[0]?.args[0].input).toMatchObject({ UserPoolId: 'us-east-1_Pool', Filter: 'email = "ada@example.com"' });
});

test('no such email: undefined', async () => {
  cognito.on(ListUsersCommand).resolves({ Users: [] });
  expect(await directory('cognito-email').findByEmail('nobody@example.com')).toBeUndefined();
});

test('a quote in an email cannot escape the filter', async () => {
  cognito.on(ListUsersCommand).resolves({ Users: [] });
  await directory('cognito-email').findByEmail('a"b@example.com');
  expect(cognito.commandCalls(ListUsersCommand)[0]?.args[0].input.Filter).toBe('email = "ab@example.com"');
});

test('in AWS, Cognito emails the invitation: no temporary password comes back', async () => {
  cognito.on(AdminCreateUserCommand).resolves({ User: { Attributes: attributes('sub-2', 'new@example.com') } });
  const created = await directory('cognito-email').createUser('New@Example.com');
  expect(created).toEqual({ user: { userId: 'sub-2', email: 'new@example.com' } });
  const input = cognito.commandCalls(AdminCreateUserCommand)[0]?.args[0].input;
  expect(input).toMatchObject({ Username: 'new@example.com', DesiredDeliveryMediums: ['EMAIL'] });
  expect(input?.MessageAction).toBeUndefined();
  expect(input?.TemporaryPassword).toBeUndefined();
});

test('against the local stand-in, no mail: a temporary password meeting a strong policy is made and handed back once', async () => {
  cognito.on(AdminCreateUserCommand).resolves({ User: { Attributes: attributes('sub-3', 'local@example.com') } });
  const created = await directory('return-temporary-password').createUser('local@example.com');
  const input = cognito.commandCalls(AdminCreateUserCommand)[0]?.args[0].input;
  expect(input).toMatchObject({ MessageAction: 'SUPPRESS', TemporaryPassword: created.temporaryPassword });
  expect(created.temporaryPassword).toMatch(/^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[^A-Za-z0-9]).{12,}$/);
});

test('getUser: AdminGetUser, and undefined for an unknown user', async () => {
  cognito.on(AdminGetUserCommand, { Username: 'sub-1' }).resolves({ UserAttributes: attributes('sub-1', 'ada@example.com') });
  cognito.on(AdminGetUserCommand, { Username: 'gone' }).rejects(new UserNotFoundException({ message: 'User does not exist.', $metadata: {} }));
  expect(await directory('cognito-email').getUser('sub-1')).toEqual({ userId: 'sub-1', email: 'ada@example.com' });
  expect(await directory('cognito-email').getUser('gone')).toBeUndefined();
});
