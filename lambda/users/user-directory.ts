/**
 * The people who can sign in: the identity provider's users (Amazon Cognito in AWS, its stand-in
 * locally). The table knows them by `userId` (the pool's `sub`) and email only.
 */
export interface DirectoryUser {
  readonly userId: string;
  readonly email: string;
}

export interface CreatedUser {
  readonly user: DirectoryUser;
  /**
   * Shown once to whoever added the person, where the pool sends no invitation itself (the local
   * stand-in); absent where it emails one (Cognito). Never stored, logged or audited.
   */
  readonly temporaryPassword?: string;
}

export interface UserDirectory {
  findByEmail(email: string): Promise<DirectoryUser | undefined>;
  getUser(userId: string): Promise<DirectoryUser | undefined>;
  /** A new user who must set a password at first sign-in. */
  createUser(email: string): Promise<CreatedUser>;
}

/** Emails are compared as the pool stores them: lower case, no surrounding spaces. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
