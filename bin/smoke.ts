/**
 * `npm run smoke -- --url <ApiUrl> --key <key>`: the deployed stack checked end to end from the operator's
 * machine (admin/smoke/). Exit 0 when every check holds, 1 when one fails, 2 on bad options.
 */
import { runSmokeChecks } from '../admin/smoke/checks';
import { parseSmokeOptions, SMOKE_USAGE } from '../admin/smoke/options';
import { formatReport } from '../admin/smoke/report';

async function main(): Promise<number> {
  const options = parseSmokeOptions(process.argv.slice(2), process.env);
  if ('error' in options) {
    process.stderr.write(`smoke: ${options.error}\n\n${SMOKE_USAGE}`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(SMOKE_USAGE);
    return 0;
  }
  const results = await runSmokeChecks(options.target);
  process.stdout.write(formatReport(options.target.apiUrl, results));
  return results.every((result) => result.ok) ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`smoke: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
