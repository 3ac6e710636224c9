import type { PromptConfig } from '../../domain/prompt';
import type { ModelErrorCode } from '../../models/errors';
import type { ProviderName } from '../../models/catalog';
import type { StopReason } from '../../models/provider';
import type { SchemaCheck } from './output-schema';

/** What a run is of (docs/runs.md "Runs"): a stored version, a label of a prompt, or what an editor holds, unsaved. */
export type RunSource =
  | { readonly promptId: string; readonly version: string }
  | { readonly promptId: string; readonly label: string }
  | { readonly prompt: UnsavedPrompt; readonly promptId?: string };

export interface UnsavedPrompt {
  readonly systemMessage: string;
  readonly userMessage: string;
  readonly config: Pick<PromptConfig, 'model' | 'temperature'> & Partial<Pick<PromptConfig, 'schema'>>;
}

/** The parameters a run was asked with; each, unsaid, its default (the prompt's temperature, 1,024 tokens). */
export interface RunParams {
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly topP?: number;
  readonly stop?: readonly string[];
}

/** The parameters as sent: maxTokens and temperature always. */
export interface SentParams {
  readonly temperature: number;
  readonly maxTokens: number;
  readonly topP?: number;
  readonly stop?: readonly string[];
}

export interface SentMessage {
  readonly role: 'system' | 'user';
  readonly content: string;
}

export type RunState = 'completed' | 'failed';

/** A run as it is answered and kept, 90 days. */
export interface RunRecord {
  readonly runId: string;
  readonly promptId: string | null;
  readonly version: string | null;
  readonly label: string | null;
  readonly provider: ProviderName;
  readonly model: string;
  readonly params: SentParams;
  readonly variables: Readonly<Record<string, string>>;
  readonly messages: readonly SentMessage[];
  readonly output: { readonly text: string; readonly json: unknown };
  /** null when the prompt asks for no structured output. */
  readonly schema: SchemaCheck | null;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  readonly costUsd: number;
  readonly latencyMs: number;
  readonly firstTokenMs: number | null;
  readonly stopReason: StopReason | null;
  readonly attempts: number;
  readonly state: RunState;
  readonly error: { readonly code: ModelErrorCode; readonly message: string } | null;
  /** The person's email, or `cli:<operator>`. */
  readonly by: string;
  readonly at: string;
}

/** What a run costs at the catalog's prices, in US dollars (to a millionth of a cent). */
export function costOf(usage: RunRecord['usage'], prices: { readonly inputUsdPerMTok: number; readonly outputUsdPerMTok: number }): number {
  const usd = (usage.inputTokens * prices.inputUsdPerMTok + usage.outputTokens * prices.outputUsdPerMTok) / 1_000_000;
  return Math.round(usd * 1e8) / 1e8;
}
