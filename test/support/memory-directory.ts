import { randomBytes, randomUUID } from 'node:crypto';
import { type CreatedUser, type DirectoryUser, normalizeEmail, type UserDirectory } from '../../lambda/users/user-directory';
import { registerApiKey } from './log-capture';

/**
 * The user pool as the management API sees it (lambda/users/user-directory.ts), in memory: the tests
 * of the management API add people through it. The Cognito implementation is tested on its own
 * (test/unit/cognito-user-directory.test.ts); the local stand-in of the pool is the identity work's.
 */
export class MemoryDirectory implements UserDirectory {
  readonly users = new Map<string, DirectoryUser>();
  /** Temporary passwords handed out, to grep the logs for like keys. */
  readonly passwords: string[] = [];

  add(email: string, userId: string = randomUUID()): DirectoryUser {
    const user = { userId, email: normalizeEmail(email) };
    this.users.set(user.email, user);
    return user;
  }

  async findByEmail(email: string): Promise<DirectoryUser | undefined> {
    return this.users.get(normalizeEmail(email));
  }

  async getUser(userId: string): Promise<DirectoryUser | undefined> {
    return [...this.users.values()].find((user) => user.userId === userId);
  }

  async createUser(email: string): Promise<CreatedUser> {
    const user = this.add(email);
    const temporaryPassword = `Tmp${randomBytes(12).toString('base64url')}1a`;
    this.passwords.push(temporaryPassword);
    registerApiKey(temporaryPassword);
    return { user, temporaryPassword };
  }
}
