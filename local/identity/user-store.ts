import { randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PASSWORD_POLICY } from '../../lib/password-policy';

/** Cognito's user states that the stand-in has: invited (temporary password) or signed up. */
export type UserStatus = 'FORCE_CHANGE_PASSWORD' | 'CONFIRMED';

/** One person in the stand-in's pool, as kept on disk. The password only as a salted scrypt hash. */
export interface StoredUser {
  /** Cognito's `sub`, also the username: the pool signs people in by email. */
  readonly userId: string;
  readonly email: string;
  readonly emailVerified: boolean;
  readonly enabled: boolean;
  readonly status: UserStatus;
  readonly passwordHash: string;
  readonly passwordSetAt: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

interface UsersFile {
  readonly version: 1;
  readonly users: readonly StoredUser[];
}

export class UserExistsError extends Error {
  override readonly name = 'UserExistsError';
}

const FILE_NAME = 'users.json';
// scrypt at N=2^15 costs about 0.1 s here: slow for a guesser, quick enough for a sign-in.
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 32;

/**
 * The stand-in's users, in `<dir>/users.json`, so they survive restarts as the store's data does. Every
 * change is written whole to a temporary file and renamed over the old one, one write at a time: a stop
 * at any moment leaves the previous or the new file, never half of one.
 */
export class UserStore {
  readonly #path: string;
  readonly #users = new Map<string, StoredUser>();
  #writing: Promise<void> = Promise.resolve();

  private constructor(path: string) {
    this.#path = path;
  }

  static async open(dir: string): Promise<UserStore> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const store = new UserStore(join(dir, FILE_NAME));
    const text = await readFile(store.#path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (text !== undefined) {
      const file = JSON.parse(text) as UsersFile;
      for (const user of file.users) store.#users.set(user.userId, user);
    }
    return store;
  }

  /** By `sub` or by email (case-insensitive, as the pool's sign-in is). */
  find(username: string): StoredUser | undefined {
    const byId = this.#users.get(username);
    if (byId) return byId;
    const email = username.toLowerCase();
    return [...this.#users.values()].find((user) => user.email.toLowerCase() === email);
  }

  list(): StoredUser[] {
    return [...this.#users.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async create(input: { email: string; emailVerified: boolean; temporaryPassword: string }): Promise<StoredUser> {
    if (this.find(input.email)) throw new UserExistsError('An account with the given email already exists.');
    const now = new Date().toISOString();
    const user: StoredUser = {
      userId: randomUUID(),
      email: input.email,
      emailVerified: input.emailVerified,
      enabled: true,
      status: 'FORCE_CHANGE_PASSWORD',
      passwordHash: await hashPassword(input.temporaryPassword),
      passwordSetAt: now,
      createdAt: now,
      updatedAt: now,
    };
    // Checked again: another create may have finished while this one hashed.
    if (this.find(input.email)) throw new UserExistsError('An account with the given email already exists.');
    this.#users.set(user.userId, user);
    await this.#save();
    return user;
  }

  /** A permanent password confirms the user; a temporary one asks for a new password at the next sign-in. */
  async setPassword(userId: string, password: string, permanent: boolean): Promise<StoredUser> {
    const passwordHash = await hashPassword(password);
    const now = new Date().toISOString();
    return this.#update(userId, { passwordHash, passwordSetAt: now, status: permanent ? 'CONFIRMED' : 'FORCE_CHANGE_PASSWORD' });
  }

  async delete(userId: string): Promise<boolean> {
    const deleted = this.#users.delete(userId);
    if (deleted) await this.#save();
    return deleted;
  }

  async verifyPassword(user: StoredUser, password: string): Promise<boolean> {
    return verifyPassword(user.passwordHash, password);
  }

  /** A temporary password works for PASSWORD_POLICY.tempPasswordValidityDays, as the pool's does. */
  temporaryPasswordExpired(user: StoredUser, now = Date.now()): boolean {
    const validMs = PASSWORD_POLICY.tempPasswordValidityDays * 24 * 3600 * 1000;
    return user.status === 'FORCE_CHANGE_PASSWORD' && now - Date.parse(user.passwordSetAt) > validMs;
  }

  async #update(userId: string, change: Partial<StoredUser>): Promise<StoredUser> {
    const user = this.#users.get(userId);
    if (!user) throw new Error(`no user ${userId}`);
    const updated: StoredUser = { ...user, ...change, updatedAt: new Date().toISOString() };
    this.#users.set(userId, updated);
    await this.#save();
    return updated;
  }

  #save(): Promise<void> {
    const file: UsersFile = { version: 1, users: this.list() };
    const text = `${JSON.stringify(file, null, 2)}\n`;
    const write = async () => {
      const temporary = `${this.#path}.${process.pid}.tmp`;
      await writeFile(temporary, text, { mode: 0o600 });
      await rename(temporary, this.#path);
    };
    this.#writing = this.#writing.then(write, write);
    return this.#writing;
  }
}

function scryptAsync(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, KEY_LENGTH, SCRYPT, (error, key) => (error ? reject(error) : resolve(key))));
}

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt);
  return `scrypt$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const [scheme, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
