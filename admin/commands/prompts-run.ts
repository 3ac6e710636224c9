import { actorName } from '../../lambda/domain/actor';
import { isValidLabel, LABEL_RULE, LATEST_LABEL } from '../../lambda/domain/label';
import { RunFailedError } from '../../lambda/features/runs/errors';
import { runPrompt } from '../../lambda/features/runs/run-prompt';
import type { RunRecord, RunSource } from '../../lambda/features/runs/run-record';
import type { Command, CommandArgs } from '../command';
import { stringOption, UsageError } from '../command';
import { accountOption, promptIdOption, versionOption } from '../option-values';

/**
 * `prompts run`: a prompt run on a model through the run operation the management API runs it with
 * (lambda/features/runs/run-prompt.ts), recorded as the operator's (`cli:<operator>`) and counted against the
 * account's budget. Its output is written as the model writes it, then its tokens, cost and time.
 */

function variablesOf(args: CommandArgs): Record<string, string> {
  const given = args.values.var;
  const pairs = given === undefined ? [] : typeof given === 'string' ? [given] : Array.isArray(given) ? given : [];
  const variables: Record<string, string> = Object.create(null);
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals < 1) throw new UsageError(`--var must be name=value, got "${pair.slice(0, 40)}"`);
    variables[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return variables;
}

function sourceOf(args: CommandArgs): RunSource {
  const promptId = promptIdOption(args);
  const label = stringOption(args, 'label');
  if (stringOption(args, 'version') !== undefined) {
    if (label !== undefined) throw new UsageError('give --version or --label, not both');
    return { promptId, version: versionOption(args) };
  }
  if (label !== undefined && !isValidLabel(label)) throw new UsageError(`--label must be a label: ${LABEL_RULE}, or latest`);
  return { promptId, label: label ?? LATEST_LABEL };
}

function numberOption(args: CommandArgs, name: string): number | undefined {
  const value = stringOption(args, name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) throw new UsageError(`--${name} must be a number, got "${value.slice(0, 20)}"`);
  return number;
}

/** The line after the output: what the run used, cost and took. */
export function runSummary(run: RunRecord): string {
  const tokens = `${run.usage.inputTokens} in + ${run.usage.outputTokens} out tokens`;
  const time = `${run.latencyMs} ms${run.firstTokenMs === null ? '' : ` (first token ${run.firstTokenMs} ms)`}`;
  const model = `${run.model} (${run.provider === 'local' ? 'local stand-in model' : run.provider})`;
  return `${tokens}, $${run.costUsd.toFixed(6)}, ${time}, ${model}, ${run.runId}`;
}

export const runCommand: Command = {
  words: ['prompts', 'run'],
  summary: 'Run a prompt on a model: its output as the model writes it, then tokens, cost and time',
  synopsis:
    '--account <accountId> --prompt <promptId> [--version <x.y.z> | --label <label>] [--var <name=value> ...] [--model <modelId>] ' +
    '[--temperature <0-2>] [--max-tokens <1-8192>]',
  help: [
    '--account <accountId>  the account (required)',
    '--prompt <promptId>    the prompt (required)',
    '--version <x.y.z>      a version to run, a draft too; or',
    '--label <label>        the version a label points at (default: latest, the highest published)',
    '--var <name=value>     a value for a placeholder; once per placeholder',
    "--model <modelId>      a model of the catalog (default: the prompt's model, when the catalog has it)",
    "--temperature <0-2>    default: the prompt's; --max-tokens <1-8192>, default 1024",
    'The catalog is MODELS, or, with AWS_ENDPOINT_URL_BEDROCK_RUNTIME (npm start prints it), the local stand-in',
    "model's; without either, the default Bedrock models, called with your AWS credentials (docs/runs.md).",
    "The run is kept 90 days and counts against the account's budget of model tokens, as yours (cli:<operator>).",
    'Exit 0 when the run completed, 1 when it failed (its error is said; the failed run is kept), 2 on bad input.',
  ],
  examples: [
    'prompts run --account acct_demo --prompt welcome-email --var customerName=Ada --var productName=Acme',
    'prompts run --account acme --prompt ticket-reply --label production --var ticket="It broke" --model us.amazon.nova-lite-v1:0 --json',
  ],
  options: {
    account: { type: 'string' },
    prompt: { type: 'string' },
    version: { type: 'string' },
    label: { type: 'string' },
    var: { type: 'string', multiple: true },
    model: { type: 'string' },
    temperature: { type: 'string' },
    'max-tokens': { type: 'string' },
  },
  async run(context, args) {
    const accountId = accountOption(args);
    const source = sourceOf(args);
    const variables = variablesOf(args);
    const model = stringOption(args, 'model');
    const temperature = numberOption(args, 'temperature');
    const maxTokens = numberOption(args, 'max-tokens');
    const ask = {
      accountId,
      source,
      variables,
      ...(model === undefined ? {} : { model }),
      params: { ...(temperature === undefined ? {} : { temperature }), ...(maxTokens === undefined ? {} : { maxTokens }) },
      by: actorName(context.operations().actor),
    };
    const write = context.stream;
    let run: RunRecord;
    try {
      run = await runPrompt({ table: context.table(), models: context.models() }, ask, write ? { onDelta: write } : {});
    } catch (error) {
      if (!(error instanceof RunFailedError)) throw error;
      return {
        json: { run: error.run, error: { code: error.failure.code, message: error.failure.message } },
        text: `\n\nrun failed, ${error.failure.code}: ${error.failure.message}\n${runSummary(error.run)}`,
        exitCode: 1,
      };
    }
    return { json: { run }, text: `${write ? '' : run.output.text}\n\n${runSummary(run)}` };
  },
};
