import type { CatalogModel } from './catalog';

/** What a run asks of a model: its messages as sent, its parameters, and the JSON object it must answer with, if any. */
export interface ModelRequest {
  readonly model: CatalogModel;
  readonly system: string;
  readonly user: string;
  readonly params: ModelParams;
  /** Ask for one JSON object of this JSON Schema (a forced tool on Bedrock, `response_format` on OpenAI's API). */
  readonly output?: StructuredOutput;
}

export interface ModelParams {
  readonly maxTokens: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly stop?: readonly string[];
}

export interface StructuredOutput {
  /** A tool's or a response format's name: `[a-zA-Z0-9_-]{1,64}`. */
  readonly name: string;
  readonly description: string;
  /** A JSON Schema of an object. */
  readonly schema: JsonObject;
}

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [name: string]: JsonValue;
}

/** Bedrock's words for why a model stopped, which every provider's answer is put in. */
import type { StopReason } from '../domain/run-rules';

export type { StopReason };

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface ModelAnswer {
  /** What the model wrote; for a structured answer given as a tool's input, that input as JSON text. */
  readonly text: string;
  /** The tool's input, when the model answered through the forced tool. */
  readonly toolInput?: unknown;
  readonly usage: TokenUsage;
  readonly stopReason: StopReason;
  /** From the first attempt's start to the first piece of the answer; null when the answer did not stream. */
  readonly firstTokenMs: number | null;
  /** From the first attempt's start to the answer's end. */
  readonly latencyMs: number;
  /** Calls made, retries of throttled ones included. */
  readonly attempts: number;
}

export interface CallOptions {
  /** Each piece of the answer as the model writes it (streaming models only). */
  readonly onDelta?: (text: string) => void;
  /** The caller has gone: stop. */
  readonly signal?: AbortSignal;
  /** Epoch ms past which the call is a ModelTimeoutError (the run's 120 s). */
  readonly deadline: number;
}

/**
 * One way of calling models (Bedrock, an OpenAI-compatible endpoint). A call resolves with the whole answer, handing
 * each piece to `onDelta` on the way, or rejects with a ModelCallError (errors.ts); retries are retry.ts's.
 */
export interface ModelProvider {
  converse(request: ModelRequest, options: CallOptions): Promise<ModelAnswer>;
}
