import { randomBytes } from 'node:crypto';

/** Same character set as prompt ids: safe inside the table's `#`-separated keys and in URLs and logs. */
export const ACCOUNT_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export const ACCOUNT_ID_RULE = '1 to 64 characters of A-Z a-z 0-9 _ . -';

export function isValidAccountId(value: string): boolean {
  return ACCOUNT_ID_PATTERN.test(value);
}

export function generateAccountId(): string {
  return `acct_${randomBytes(8).toString('hex')}`;
}
