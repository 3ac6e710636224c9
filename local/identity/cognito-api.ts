import { randomInt } from 'node:crypto';
import { PASSWORD_SYMBOLS, passwordPolicyViolation } from '../../lib/password-policy';
import { type StoredUser, UserExistsError, type UserStore } from './user-store';

/**
 * The part of Amazon Cognito's user-pool API (AWS JSON 1.1, `X-Amz-Target:
 * AWSCognitoIdentityProviderService.<Operation>`) that the management API's user directory calls:
 * AdminCreateUser, AdminGetUser, ListUsers (one attribute filter), AdminSetUserPassword and
 * AdminDeleteUser, with Cognito's shapes and error types, so `@aws-sdk/client-cognito-identity-provider`
 * works against it unchanged. Requests are not signature-checked: the stand-in listens on loopback only.
 */

export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

export const TARGET_PREFIX = 'AWSCognitoIdentityProviderService.';

type Input = Readonly<Record<string, unknown>>;

class CognitoError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new CognitoError('InvalidParameterException', message);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LIST_LIMIT = 60;

export function createCognitoApi(store: UserStore, userPoolId: string) {
  // A Map: the operation's name comes from the request (`__proto__` and `hasOwnProperty` are names too).
  const operations = new Map<string, (input: Input) => Promise<unknown>>(
    Object.entries({
      AdminCreateUser: async (input) => {
        const email = requiredString(input, 'Username');
        if (!EMAIL.test(email)) throw invalid('Username should be an email.');
        const attributes = attributesOf(input.UserAttributes);
        if (attributes.email !== undefined && attributes.email.toLowerCase() !== email.toLowerCase()) {
          throw invalid('The email attribute must be the username: this pool signs people in by email.');
        }
        const existing = store.find(email);
        if (input.MessageAction === 'RESEND') {
          if (!existing) throw new CognitoError('UserNotFoundException', 'User does not exist.');
          if (existing.status !== 'FORCE_CHANGE_PASSWORD') throw invalid('User is already confirmed.');
          const updated = await store.setPassword(existing.userId, temporaryPasswordOf(input), false);
          return { User: userType(updated) };
        }
        if (existing) throw new CognitoError('UsernameExistsException', 'An account with the given email already exists.');
        try {
          const user = await store.create({
            email,
            emailVerified: attributes.email_verified === 'true',
            temporaryPassword: temporaryPasswordOf(input),
          });
          return { User: userType(user) };
        } catch (error) {
          if (error instanceof UserExistsError) throw new CognitoError('UsernameExistsException', error.message);
          throw error;
        }
      },
      AdminGetUser: async (input) => {
        const user = existingUser(input);
        const { Attributes, ...rest } = userType(user);
        return { ...rest, UserAttributes: Attributes };
      },
      ListUsers: async (input) => {
        const matches = filterOf(input.Filter);
        const limit = input.Limit === undefined ? LIST_LIMIT : Number(input.Limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT) throw invalid(`Limit must be from 1 to ${LIST_LIMIT}.`);
        const start = input.PaginationToken === undefined ? 0 : pageStart(input.PaginationToken);
        const found = store.list().filter(matches);
        const page = found.slice(start, start + limit);
        const next = start + limit < found.length ? Buffer.from(String(start + limit)).toString('base64url') : undefined;
        return { Users: page.map(userType), ...(next ? { PaginationToken: next } : {}) };
      },
      AdminSetUserPassword: async (input) => {
        const user = existingUser(input);
        const password = requiredString(input, 'Password');
        const violation = passwordPolicyViolation(password);
        if (violation) throw new CognitoError('InvalidPasswordException', violation);
        await store.setPassword(user.userId, password, input.Permanent === true);
        return {};
      },
      AdminDeleteUser: async (input: Input) => {
        await store.delete(existingUser(input).userId);
        return {};
      },
    }),
  );

  function existingUser(input: Input): StoredUser {
    const user = store.find(requiredString(input, 'Username'));
    if (!user) throw new CognitoError('UserNotFoundException', 'User does not exist.');
    return user;
  }

  return async function answer(target: string | undefined, input: unknown): Promise<ApiAnswer> {
    const operation = target?.startsWith(TARGET_PREFIX) ? operations.get(target.slice(TARGET_PREFIX.length)) : undefined;
    try {
      if (!operation) throw new CognitoError('UnknownOperationException', `The stand-in does not implement ${target ?? 'this'}`);
      if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new CognitoError('SerializationException', 'Body must be a JSON object');
      const body = input as Input;
      if (body.UserPoolId !== userPoolId) throw new CognitoError('ResourceNotFoundException', `User pool ${String(body.UserPoolId)} does not exist.`);
      return { status: 200, body: await operation(body) };
    } catch (error) {
      if (error instanceof CognitoError) return { status: 400, body: { __type: error.type, message: error.message } };
      throw error;
    }
  };
}

function requiredString(input: Input, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '') throw invalid(`${name} is required.`);
  return value;
}

function attributesOf(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (!Array.isArray(value)) throw invalid('UserAttributes must be a list of {Name, Value}.');
  const attributes: Record<string, string> = {};
  for (const entry of value as { Name?: unknown; Value?: unknown }[]) {
    if (typeof entry?.Name !== 'string' || typeof entry.Value !== 'string') throw invalid('UserAttributes must be a list of {Name, Value}.');
    if (!['email', 'email_verified'].includes(entry.Name)) throw invalid(`Attribute ${entry.Name} is not part of this pool's schema.`);
    attributes[entry.Name] = entry.Value;
  }
  return attributes;
}

/** The one given (checked against the policy), or one made up: Cognito would email it, the stand-in sends no mail. */
function temporaryPasswordOf(input: Input): string {
  if (input.TemporaryPassword === undefined) return generatedPassword();
  const password = requiredString(input, 'TemporaryPassword');
  const violation = passwordPolicyViolation(password);
  if (violation) throw new CognitoError('InvalidPasswordException', violation);
  return password;
}

/** A password the policy accepts: 20 characters, at least one of each class, from a CSPRNG. */
export function generatedPassword(): string {
  const classes = ['abcdefghijkmnopqrstuvwxyz', 'ABCDEFGHJKLMNPQRSTUVWXYZ', '23456789', PASSWORD_SYMBOLS.replace(' ', '')];
  const all = classes.join('');
  const pick = (from: string) => from[randomInt(from.length)] as string;
  const characters = [...classes.map(pick), ...Array.from({ length: 16 }, () => pick(all))];
  for (let i = characters.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [characters[i], characters[j]] = [characters[j] as string, characters[i] as string];
  }
  return characters.join('');
}

function userType(user: StoredUser) {
  return {
    Username: user.userId,
    Attributes: [
      { Name: 'sub', Value: user.userId },
      { Name: 'email', Value: user.email },
      { Name: 'email_verified', Value: String(user.emailVerified) },
    ],
    // AWS JSON 1.1 sends timestamps as epoch seconds.
    UserCreateDate: Date.parse(user.createdAt) / 1000,
    UserLastModifiedDate: Date.parse(user.updatedAt) / 1000,
    Enabled: user.enabled,
    UserStatus: user.status,
  };
}

/** `attribute = "value"` or `attribute ^= "value"` (starts with), one attribute, as Cognito's ListUsers takes. */
function filterOf(filter: unknown): (user: StoredUser) => boolean {
  if (filter === undefined || filter === '') return () => true;
  const match = typeof filter === 'string' ? /^\s*([\w:]+)\s*(\^?=)\s*"((?:[^"\\]|\\.)*)"\s*$/.exec(filter) : null;
  if (!match) throw invalid('Error while parsing filter.');
  const [, attribute, operator, quoted] = match as unknown as [string, string, string, string];
  const value = quoted.replace(/\\(.)/g, '$1');
  const fields: Record<string, { of: (user: StoredUser) => string; caseSensitive: boolean }> = {
    username: { of: (user) => user.userId, caseSensitive: true },
    sub: { of: (user) => user.userId, caseSensitive: true },
    email: { of: (user) => user.email, caseSensitive: false },
    'cognito:user_status': { of: (user) => user.status, caseSensitive: true },
    status: { of: (user) => (user.enabled ? 'Enabled' : 'Disabled'), caseSensitive: false },
  };
  const field = fields[attribute];
  if (!field) throw invalid(`Invalid search attribute: ${attribute}`);
  const fold = (text: string) => (field.caseSensitive ? text : text.toLowerCase());
  const wanted = fold(value);
  return (user) => (operator === '=' ? fold(field.of(user)) === wanted : fold(field.of(user)).startsWith(wanted));
}

function pageStart(token: unknown): number {
  const start = typeof token === 'string' ? Number(Buffer.from(token, 'base64url').toString()) : Number.NaN;
  if (!Number.isInteger(start) || start < 0) throw invalid('Invalid pagination token.');
  return start;
}
