import type { ApiKeys } from './api-keys';
import { deadlineSignal, timeSince } from './call-timing';
import { ModelCallError, ModelError, ModelThrottledError, ModelTimeoutError, providerMessage } from './errors';
import type { CallOptions, ModelAnswer, ModelProvider, ModelRequest, StopReason, TokenUsage } from './provider';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from './retry';
import { SecretScrubber, withoutSecrets } from './secret-scrubber';
import { serverSentData } from './server-sent-events';

/**
 * Any OpenAI-compatible chat completions endpoint (OpenAI, a LiteLLM proxy, vLLM, Ollama) over fetch: streamed as
 * server-sent events with `stream_options.include_usage` (the usage comes in the last chunk), or one JSON answer for
 * a model that does not stream; structured output as `response_format` `json_schema`. Its key, when it has one, is
 * sent as a Bearer token and is taken out of anything the endpoint says back before it goes further.
 */
type Fetch = typeof fetch;

type Attempted = Omit<ModelAnswer, 'firstTokenMs' | 'latencyMs' | 'attempts'>;

/** What an error answer may be read of: enough for a message, never a proxy's whole page. */
const MAX_ERROR_BODY_BYTES = 16 * 1024;

export class OpenAiProvider implements ModelProvider {
  constructor(
    private readonly keys: ApiKeys,
    private readonly retry: RetryPolicy = DEFAULT_RETRY_POLICY,
    private readonly fetchImpl: Fetch = fetch,
  ) {}

  async converse(request: ModelRequest, options: CallOptions): Promise<ModelAnswer> {
    const started = performance.now();
    const key = await this.keys.keyFor(request.model);
    let firstAt: number | undefined;
    const onDelta = (text: string) => {
      if (text === '') return;
      firstAt ??= performance.now();
      options.onDelta?.(text);
    };
    const { value, attempts } = await withRetries(
      () => this.attempt(request, key, onDelta, options),
      options.signal ? { deadline: options.deadline, signal: options.signal, policy: this.retry } : { deadline: options.deadline, policy: this.retry },
    );
    return {
      ...value,
      firstTokenMs: request.model.streaming && firstAt !== undefined ? Math.round(firstAt - started) : null,
      latencyMs: timeSince(started),
      attempts,
    };
  }

  private async attempt(request: ModelRequest, key: string | undefined, onDelta: (text: string) => void, options: CallOptions): Promise<Attempted> {
    const { signal, expired, dispose } = deadlineSignal(options.deadline, options.signal);
    const secrets = key === undefined ? [] : [key];
    const reading = { answered: false };
    try {
      const response = await this.fetchImpl(`${request.model.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: request.model.streaming ? 'text/event-stream' : 'application/json',
          ...(key === undefined ? {} : { Authorization: `Bearer ${key}` }),
        },
        body: JSON.stringify(chatBody(request)),
        signal,
        // A redirect would carry the key to wherever it points.
        redirect: 'error',
      });
      if (!response.ok) throw await errorAnswer(response, secrets);
      if (!request.model.streaming) return completionOf(await response.json(), request, secrets);
      return await readStream(response, request, secrets, (text) => {
        reading.answered = true;
        onDelta(text);
      });
    } catch (error) {
      const failure = endpointError(error, expired(), secrets);
      failure.answered = reading.answered;
      throw failure;
    } finally {
      dispose();
    }
  }
}

function chatBody(request: ModelRequest): Record<string, unknown> {
  const { model, params, output } = request;
  return {
    model: model.endpointModel ?? model.modelId,
    messages: [...(request.system.trim() === '' ? [] : [{ role: 'system', content: request.system }]), { role: 'user', content: request.user }],
    max_tokens: params.maxTokens,
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    ...(params.topP === undefined ? {} : { top_p: params.topP }),
    ...(params.stop === undefined || params.stop.length === 0 ? {} : { stop: [...params.stop] }),
    ...(model.streaming ? { stream: true, stream_options: { include_usage: true } } : {}),
    ...(output ? { response_format: { type: 'json_schema', json_schema: { name: output.name, description: output.description, schema: output.schema } } } : {}),
  };
}

interface Chunk {
  readonly choices?: readonly {
    readonly delta?: { readonly content?: unknown };
    readonly message?: { readonly content?: unknown };
    readonly finish_reason?: unknown;
  }[];
  readonly usage?: { readonly prompt_tokens?: unknown; readonly completion_tokens?: unknown } | null;
  readonly error?: { readonly message?: unknown };
}

const isChunk = (value: unknown): value is Chunk => typeof value === 'object' && value !== null && !Array.isArray(value);

async function readStream(response: Response, request: ModelRequest, secrets: readonly string[], onDelta: (text: string) => void): Promise<Attempted> {
  if (!response.body) throw new ModelError('the endpoint answered with no body');
  const scrubber = new SecretScrubber(secrets);
  const pass = (clean: string) => {
    if (clean !== '') onDelta(clean);
  };
  let text = '';
  let finish: unknown;
  let usage: Chunk['usage'];
  for await (const data of serverSentData(response.body)) {
    if (data === '[DONE]') break;
    const chunk = parseChunk(data);
    if (chunk.error !== undefined) throw new ModelError(providerMessage(String(chunk.error.message ?? 'the endpoint reported an error'), secrets));
    const choice = chunk.choices?.[0];
    const piece = choice?.delta?.content;
    if (typeof piece === 'string' && piece !== '') {
      text += piece;
      pass(scrubber.push(piece));
    }
    if (choice?.finish_reason !== undefined && choice.finish_reason !== null) finish = choice.finish_reason;
    if (chunk.usage) usage = chunk.usage;
  }
  pass(scrubber.end());
  // Counted as the endpoint wrote it; kept and answered without its key.
  return { text: withoutSecrets(text, secrets), usage: usageOf(usage, request, text), stopReason: stopReasonOf(finish) };
}

function completionOf(json: unknown, request: ModelRequest, secrets: readonly string[]): Attempted {
  if (!isChunk(json)) throw new ModelError('the endpoint answered with something other than a chat completion');
  if (json.error !== undefined) throw new ModelError(providerMessage(String(json.error.message ?? 'the endpoint reported an error'), secrets));
  const choice = json.choices?.[0];
  const content = choice?.message?.content;
  const text = typeof content === 'string' ? content : '';
  return { text: withoutSecrets(text, secrets), usage: usageOf(json.usage, request, text), stopReason: stopReasonOf(choice?.finish_reason) };
}

function parseChunk(data: string): Chunk {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new ModelError('the endpoint streamed an event that is not JSON');
  }
  if (!isChunk(json)) throw new ModelError('the endpoint streamed an event that is not a chat completion chunk');
  return json;
}

const tokenCount = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined);

/** The endpoint's count; an endpoint that reports none is counted as the stand-in counts (4 characters a token). */
function usageOf(usage: Chunk['usage'], request: ModelRequest, text: string): TokenUsage {
  const estimate = (chars: number) => Math.ceil(chars / 4);
  return {
    inputTokens: tokenCount(usage?.prompt_tokens) ?? estimate([...request.system].length + [...request.user].length),
    outputTokens: tokenCount(usage?.completion_tokens) ?? estimate([...text].length),
  };
}

function stopReasonOf(finish: unknown): StopReason {
  if (finish === 'length') return 'max_tokens';
  if (finish === 'content_filter') return 'content_filtered';
  if (finish === 'tool_calls' || finish === 'function_call') return 'tool_use';
  if (finish === 'stop' || finish === undefined || finish === null) return 'end_turn';
  return 'other';
}

async function errorAnswer(response: Response, secrets: readonly string[]): Promise<ModelCallError> {
  const body = await readSome(response);
  let said = body;
  try {
    const json: unknown = JSON.parse(body);
    const error = isChunk(json) ? json.error : undefined;
    if (error && typeof error.message === 'string') said = error.message;
  } catch {
    // Not JSON: the text as it came.
  }
  const message = providerMessage(`HTTP ${response.status}: ${said}`, secrets);
  if (response.status === 429) return new ModelThrottledError(message, retryAfterMs(response.headers.get('retry-after')));
  if (response.status === 408 || response.status === 504) return new ModelTimeoutError(message);
  return new ModelError(message);
}

async function readSome(response: Response): Promise<string> {
  if (!response.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for await (const chunk of response.body) {
    bytes += chunk.byteLength;
    text += decoder.decode(chunk, { stream: true });
    if (bytes >= MAX_ERROR_BODY_BYTES) break;
  }
  return text;
}

/** `Retry-After` in seconds or as a date; at most a minute of it is honoured (the deadline decides the rest). */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, 60_000) : undefined;
}

function endpointError(error: unknown, pastDeadline: boolean, secrets: readonly string[]): ModelCallError {
  if (error instanceof ModelCallError) return error;
  if (pastDeadline) return new ModelTimeoutError('the model did not finish before the run’s deadline');
  if (error instanceof Error && error.name === 'AbortError') return new ModelTimeoutError('the run was stopped before the model finished');
  // fetch's own failure says why in its cause: ECONNREFUSED, ENOTFOUND, ...
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
  return new ModelError(providerMessage(`the endpoint could not be reached${code === undefined ? '' : ` (${code})`}`, secrets));
}
