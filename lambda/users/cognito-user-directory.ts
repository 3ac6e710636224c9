import { randomBytes, randomInt } from 'node:crypto';
import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  type AttributeType,
  CognitoIdentityProviderClient,
  ListUsersCommand,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { type CreatedUser, type DirectoryUser, normalizeEmail, type UserDirectory } from './user-directory';

export interface CognitoDirectoryOptions {
  readonly userPoolId: string;
  readonly region: string;
  /** The local stand-in's endpoint; AWS's own when absent. */
  readonly endpoint?: string | undefined;
  /**
   * Where the pool does not email invitations (the local stand-in), a temporary password is made here
   * and handed back once; in AWS, Cognito emails it and none is returned.
   */
  readonly invitations: 'cognito-email' | 'return-temporary-password';
}

/** The user directory over a Cognito user pool: ListUsers (email filter), AdminGetUser, AdminCreateUser. */
export class CognitoUserDirectory implements UserDirectory {
  private readonly client: CognitoIdentityProviderClient;

  constructor(private readonly options: CognitoDirectoryOptions) {
    this.client = new CognitoIdentityProviderClient({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    });
  }

  async findByEmail(email: string): Promise<DirectoryUser | undefined> {
    const normalized = normalizeEmail(email);
    const result = await this.client.send(
      new ListUsersCommand({ UserPoolId: this.options.userPoolId, Filter: `email = "${normalized.replace(/["\\]/g, '')}"`, Limit: 2 }),
    );
    const user = result.Users?.[0];
    return user ? toDirectoryUser(user.Attributes) : undefined;
  }

  async getUser(userId: string): Promise<DirectoryUser | undefined> {
    try {
      const result = await this.client.send(new AdminGetUserCommand({ UserPoolId: this.options.userPoolId, Username: userId }));
      return toDirectoryUser(result.UserAttributes);
    } catch (error) {
      if (error instanceof UserNotFoundException || (error as Error).name === 'UserNotFoundException') return undefined;
      throw error;
    }
  }

  async createUser(email: string): Promise<CreatedUser> {
    const normalized = normalizeEmail(email);
    const local = this.options.invitations === 'return-temporary-password';
    const temporaryPassword = local ? temporaryPasswordFor() : undefined;
    const result = await this.client.send(
      new AdminCreateUserCommand({
        UserPoolId: this.options.userPoolId,
        Username: normalized,
        UserAttributes: [
          { Name: 'email', Value: normalized },
          { Name: 'email_verified', Value: 'true' },
        ],
        DesiredDeliveryMediums: ['EMAIL'],
        ...(local ? { MessageAction: 'SUPPRESS', TemporaryPassword: temporaryPassword } : {}),
      }),
    );
    const user = toDirectoryUser(result.User?.Attributes);
    if (!user) throw new Error('the user pool created a user without a sub or an email');
    return { user, ...(temporaryPassword ? { temporaryPassword } : {}) };
  }
}

function toDirectoryUser(attributes: AttributeType[] | undefined): DirectoryUser | undefined {
  const value = (name: string) => attributes?.find((attribute) => attribute.Name === name)?.Value;
  const userId = value('sub');
  const email = value('email');
  return userId && email ? { userId, email } : undefined;
}

/** Meets a strong pool policy: upper and lower case, digits and a symbol, 20 characters. */
function temporaryPasswordFor(): string {
  const body = randomBytes(12).toString('base64url').replace(/[-_]/g, 'x');
  return `Tmp${body}${randomInt(10, 99)}!a`;
}
