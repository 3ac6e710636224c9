/**
 * The admin CLI: `npm run admin -- <command>` (or the `prompts-admin` bin). Talks to the store the
 * environment names (TABLE_NAME, DYNAMODB_ENDPOINT or AWS credentials, AWS_REGION); see `--help`.
 */
import { runAdmin } from '../admin/cli';

// Node 20 runs this fine; the SDK's notice about its own future Node support would only clutter the output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

runAdmin(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`admin: ${(error as Error)?.message ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
