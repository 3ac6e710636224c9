import { userInfo } from 'node:os';

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Who runs the CLI, as the audit log names them (`cli` with this): `PROMPTS_ADMIN_ACTOR` when set (CI
 * names itself), else the OS user, with the AWS profile when one is set. Worked out offline: asking
 * STS who the credentials belong to would need the network and credentials even for a local store.
 */
export function cliOperator(env: Environment): string {
  const named = env.PROMPTS_ADMIN_ACTOR?.trim();
  if (named) return named.slice(0, 128);
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = env.USER ?? env.USERNAME ?? 'unknown';
  }
  const profile = env.AWS_PROFILE?.trim();
  return profile ? `${user} (AWS profile ${profile})` : user;
}
