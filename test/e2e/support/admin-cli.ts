import { type Exited, runAdmin } from './processes';

export interface AdminCli {
  /** The CLI as a child process, exit code and output as they came. */
  admin(...args: string[]): Promise<Exited>;
  /** The CLI with --json, which must succeed: its stdout as JSON. */
  adminJson<T>(...args: string[]): Promise<T>;
}

/** The admin CLI against a store named by `env()`, read when each command runs (tests set it up in beforeAll). */
export function adminCli(env: () => Record<string, string>): AdminCli {
  const admin = (...args: string[]) => runAdmin(args, env());
  return {
    admin,
    async adminJson<T>(...args: string[]): Promise<T> {
      const result = await admin(...args, '--json');
      if (result.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
  };
}
