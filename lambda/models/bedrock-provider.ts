import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseCommand,
  type ConverseCommandInput,
  ConverseStreamCommand,
  type ConverseStreamOutput,
  type TokenUsage as SdkUsage,
  type StopReason as SdkStopReason,
} from '@aws-sdk/client-bedrock-runtime';
import { deadlineSignal, timeSince } from './call-timing';
import { ModelCallError, ModelError, ModelThrottledError, ModelTimeoutError, providerMessage } from './errors';
import type { CallOptions, ModelAnswer, ModelProvider, ModelRequest, StopReason, TokenUsage } from './provider';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from './retry';

/**
 * Amazon Bedrock through AWS's own Bedrock Runtime client: ConverseStream for a model that streams (each text piece
 * handed on as it arrives), Converse for one that does not; structured output as a forced tool whose input schema is
 * the prompt's. Deployed it signs with the run function's role; locally `endpoint` is the stand-in model, which
 * answers by the same protocol, so this is the code the tests run.
 */
export interface BedrockClientOptions {
  readonly region: string;
  /** The local stand-in model (or another endpoint); absent, the region's Bedrock Runtime. */
  readonly endpoint?: string;
}

export function createBedrockClient({ region, endpoint }: BedrockClientOptions): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    region,
    // Retries are retry.ts's, counted on the run, within its deadline; the SDK's would hide them.
    maxAttempts: 1,
    // Where it calls is this option alone: AWS_ENDPOINT_URL_BEDROCK_RUNTIME is read by lambda/config.ts, for the
    // stand-in's models only, never by the SDK for a Bedrock model.
    ignoreConfiguredEndpointUrls: true,
    ...(endpoint ? { endpoint } : {}),
    // The stand-in takes any signature: never reach for a real profile to talk to it.
    ...(endpoint && !/(^|\.)amazonaws\.com(\.cn)?$/i.test(new URL(endpoint).hostname)
      ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
}

export class BedrockProvider implements ModelProvider {
  constructor(
    private readonly client: BedrockRuntimeClient,
    private readonly retry: RetryPolicy = DEFAULT_RETRY_POLICY,
  ) {}

  async converse(request: ModelRequest, options: CallOptions): Promise<ModelAnswer> {
    const started = performance.now();
    let firstAt: number | undefined;
    const onDelta = (text: string) => {
      if (text === '') return;
      firstAt ??= performance.now();
      options.onDelta?.(text);
    };
    const input = converseInput(request);
    const { value, attempts } = await withRetries(
      () => this.attempt(input, request.model.streaming, onDelta, options),
      options.signal ? { deadline: options.deadline, signal: options.signal, policy: this.retry } : { deadline: options.deadline, policy: this.retry },
    );
    return {
      ...value,
      firstTokenMs: request.model.streaming && firstAt !== undefined ? Math.round(firstAt - started) : null,
      latencyMs: timeSince(started),
      attempts,
    };
  }

  private async attempt(
    input: ConverseCommandInput,
    streaming: boolean,
    onDelta: (text: string) => void,
    options: CallOptions,
  ): Promise<Omit<ModelAnswer, 'firstTokenMs' | 'latencyMs' | 'attempts'>> {
    const { signal, expired, dispose } = deadlineSignal(options.deadline, options.signal);
    const reading: { answered: boolean } = { answered: false };
    try {
      if (!streaming) {
        const output = await this.client.send(new ConverseCommand(input), { abortSignal: signal });
        return answerOf(output.output?.message?.content ?? [], output.usage, output.stopReason);
      }
      const { stream } = await this.client.send(new ConverseStreamCommand(input), { abortSignal: signal });
      if (!stream) throw new ModelError('Amazon Bedrock answered ConverseStream without a stream');
      const answer = await readStream(stream, (text) => {
        reading.answered = true;
        onDelta(text);
      });
      // An aborted stream may end as if the model had finished: what it read is not the answer.
      if (signal.aborted) throw signal.reason;
      return answer;
    } catch (error) {
      const failure = modelErrorOf(error, expired());
      failure.answered = reading.answered;
      throw failure;
    } finally {
      dispose();
    }
  }
}

function converseInput(request: ModelRequest): ConverseCommandInput {
  const { params, output } = request;
  return {
    modelId: request.model.modelId,
    ...(request.system.trim() === '' ? {} : { system: [{ text: request.system }] }),
    messages: [{ role: 'user', content: [{ text: request.user }] }],
    inferenceConfig: {
      maxTokens: params.maxTokens,
      ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
      ...(params.topP === undefined ? {} : { topP: params.topP }),
      ...(params.stop === undefined || params.stop.length === 0 ? {} : { stopSequences: [...params.stop] }),
    },
    ...(output
      ? {
          toolConfig: {
            tools: [{ toolSpec: { name: output.name, description: output.description, inputSchema: { json: output.schema } } }],
            toolChoice: { tool: { name: output.name } },
          },
        }
      : {}),
  };
}

async function readStream(
  stream: AsyncIterable<ConverseStreamOutput>,
  onDelta: (text: string) => void,
): Promise<Omit<ModelAnswer, 'firstTokenMs' | 'latencyMs' | 'attempts'>> {
  let text = '';
  let toolJson: string | undefined;
  let usage: SdkUsage | undefined;
  let stopReason: SdkStopReason | string | undefined;
  for await (const event of stream) {
    const delta = event.contentBlockDelta?.delta;
    if (delta?.text !== undefined) {
      text += delta.text;
      onDelta(delta.text);
    } else if (delta?.toolUse?.input !== undefined) {
      toolJson = (toolJson ?? '') + delta.toolUse.input;
      onDelta(delta.toolUse.input);
    }
    if (event.contentBlockStart?.start?.toolUse) toolJson ??= '';
    if (event.messageStop) stopReason = event.messageStop.stopReason;
    if (event.metadata?.usage) usage = event.metadata.usage;
  }
  if (toolJson === undefined) return { text, usage: usageOf(usage), stopReason: stopReasonOf(stopReason) };
  return { ...toolAnswer(toolJson === '' ? {} : parseJson(toolJson)), usage: usageOf(usage), stopReason: stopReasonOf(stopReason) };
}

function answerOf(
  content: readonly ContentBlock[],
  usage: SdkUsage | undefined,
  stopReason: string | undefined,
): Omit<ModelAnswer, 'firstTokenMs' | 'latencyMs' | 'attempts'> {
  const tool = content.find((block) => block.toolUse !== undefined)?.toolUse;
  const text = content.map((block) => block.text ?? '').join('');
  return { ...(tool ? toolAnswer(tool.input) : { text }), usage: usageOf(usage), stopReason: stopReasonOf(stopReason) };
}

const toolAnswer = (input: unknown): { text: string; toolInput?: unknown } =>
  input === undefined ? { text: '' } : { text: JSON.stringify(input) ?? '', toolInput: input };

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const usageOf = (usage: SdkUsage | undefined): TokenUsage => ({ inputTokens: usage?.inputTokens ?? 0, outputTokens: usage?.outputTokens ?? 0 });

const STOP_REASONS: readonly StopReason[] = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'content_filtered', 'guardrail_intervened'];

const stopReasonOf = (reason: string | undefined): StopReason =>
  STOP_REASONS.find((known) => known === reason) ?? (reason === undefined ? 'end_turn' : 'other');

interface SdkFailure {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/** What the SDK threw, as one of errors.ts's: throttling (retried), a timeout, or the provider's own message. */
export function modelErrorOf(error: unknown, pastDeadline: boolean): ModelCallError {
  if (error instanceof ModelCallError) return error;
  if (pastDeadline) return new ModelTimeoutError('the model did not finish before the run’s deadline');
  const failure: SdkFailure = typeof error === 'object' && error !== null ? error : {};
  const name = typeof failure.name === 'string' ? failure.name : 'Error';
  const message = typeof failure.message === 'string' ? failure.message : String(error);
  const said = providerMessage(`${name}: ${message}`);
  if (name === 'ThrottlingException' || failure.$metadata?.httpStatusCode === 429) return new ModelThrottledError(said);
  if (name === 'ModelTimeoutException') return new ModelTimeoutError(said);
  if (name === 'AbortError') return new ModelTimeoutError('the run was stopped before the model finished');
  if (failure.$metadata !== undefined || name.endsWith('Exception')) return new ModelError(said);
  const code = typeof failure.code === 'string' ? ` (${failure.code})` : '';
  return new ModelError(`Amazon Bedrock could not be reached${code}`);
}
