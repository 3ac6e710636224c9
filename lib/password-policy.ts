/**
 * The user pool's password policy: the deployed pool (lib/user-pool.ts) and the local stand-in
 * (local/identity/) enforce this one definition. Plain data, so local code can import it without CDK.
 */
export const PASSWORD_POLICY = {
  minLength: 12,
  requireLowercase: true,
  requireUppercase: true,
  requireDigits: true,
  requireSymbols: true,
  /** How long an invited person's temporary password works before an admin must send a new one. */
  tempPasswordValidityDays: 3,
} as const;

/** The characters Cognito counts as symbols, and so does the stand-in. */
export const PASSWORD_SYMBOLS = '^$*.[]{}()?"!@#%&/\\,><\':;|_~`=+- ';

/** What is wrong with a password under PASSWORD_POLICY, in Cognito's words; undefined when it complies. */
export function passwordPolicyViolation(password: string): string | undefined {
  if (password.length < PASSWORD_POLICY.minLength) {
    return `Password not long enough: it must have at least ${PASSWORD_POLICY.minLength} characters`;
  }
  if (PASSWORD_POLICY.requireLowercase && !/[a-z]/.test(password)) return 'Password must have lowercase characters';
  if (PASSWORD_POLICY.requireUppercase && !/[A-Z]/.test(password)) return 'Password must have uppercase characters';
  if (PASSWORD_POLICY.requireDigits && !/[0-9]/.test(password)) return 'Password must have numeric characters';
  if (PASSWORD_POLICY.requireSymbols && ![...password].some((character) => PASSWORD_SYMBOLS.includes(character))) {
    return 'Password must have symbol characters';
  }
  return undefined;
}
