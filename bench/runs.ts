/**
 * `npm run bench:runs`: only the runs' part of `npm run bench` (bench/run-overhead.ts), printed: what the service
 * adds to a model's time to first token and to each piece after it, and the store operations of a run.
 */
import { measureRuns, runOverheadReport } from './run-overhead';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// The run function's metrics would be written to stdout between the figures.
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const STORE_LATENCY_MS = Number(process.env.BENCH_STORE_LATENCY_MS ?? 3);
const ROUNDS = Number(process.env.BENCH_RUN_ROUNDS ?? 40);

measureRuns(STORE_LATENCY_MS, ROUNDS).then(
  (runs) => process.stdout.write(`${runOverheadReport(runs, STORE_LATENCY_MS).join('\n')}\n`),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
