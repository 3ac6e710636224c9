/** A prompt as the API returns it (`GET /prompts/{promptId}`). */
export interface PromptData {
  readonly promptId: string;
  readonly promptName: string;
  /** The resolved version: the one asked for, or the latest published one. */
  readonly version: string;
  readonly systemMessage: string;
  /** The user message template, with `${variable}` placeholders. */
  readonly userMessage: string;
  readonly config: PromptConfig;
}

export interface PromptConfig {
  readonly model: string;
  readonly temperature: number;
  readonly schema: readonly unknown[];
  readonly inputData: unknown;
  readonly inputDataRootName: string | null;
}

/** Where the copy came from: the API just now, the client's cache, or the snapshot it was given. */
export type PromptSource = 'network' | 'cache' | 'snapshot';

/** What a placeholder may be filled with; numbers and booleans are written as `String(value)` does. */
export type TemplateValue = string | number | boolean;

/** One value for each variable; with a generated registry, exactly the prompt's variables. */
export type TemplateValues<V extends string = string> = { readonly [K in V]: TemplateValue };

export interface CompileOptions {
  /** Also refuse values for names that are not variables of the prompt (typos, stale callers). */
  readonly strict?: boolean;
}

export interface CompiledMessages {
  readonly systemMessage: string;
  readonly userMessage: string;
}

/**
 * Which side of a label's rollout a prompt is (docs/rollouts.md): the rollout, its share as the client last
 * learnt it, both versions, and the side this prompt is (`version` is `from` or `to` accordingly).
 */
export interface PromptRollout {
  readonly rolloutId: string;
  readonly percent: number;
  readonly from: string;
  readonly to: string;
  readonly side: 'from' | 'to';
}

export interface ClientPrompt<V extends string = string> extends PromptData {
  /** Every `${...}` of the system and user messages, each once, in order of first appearance. */
  readonly variables: readonly V[];
  readonly source: PromptSource;
  /** Present when it was read at a label that is rolling out: the rollout and the side this is. */
  readonly rollout?: PromptRollout;
  /** Both messages with every placeholder filled; throws a TemplateVariablesError naming what is wrong. */
  compile(values: TemplateValues<V>, options?: CompileOptions): CompiledMessages;
}

/** The key's monthly quota as of the last answer that carried `X-RateLimit-*`. */
export interface Quota {
  readonly limit: number;
  readonly remaining: number;
  readonly resetsAt: Date;
}

/**
 * What the type generator (`prompt-types`) writes: for each promptId, its latest version and that
 * version's variables, and optionally the variables of other versions and of the versions at labels.
 */
export interface PromptShape {
  readonly version?: string;
  readonly variables: string;
  readonly versions?: { readonly [version: string]: string };
  readonly labels?: { readonly [label: string]: string };
}

/** A registry of prompts: any object type whose properties are PromptShapes. */
export type PromptRegistry<R> = { readonly [K in keyof R]: PromptShape };

/** Without a registry every id is accepted and every prompt's variables are plain strings. */
export type UntypedPrompts = { readonly [promptId: string]: { readonly variables: string } };

/**
 * A literal id must be one of the registry's (typos fail to type-check); an id only known as `string`
 * at compile time is accepted, and its prompt is untyped.
 */
export type KnownPromptId<R, Id extends string> = string extends Id ? Id : Id & keyof R;

/** The variables of a prompt at the latest version (Ver undefined) or at a pinned one. */
export type VariablesOf<R, Id extends string, Ver> = Id extends keyof R
  ? Ver extends undefined
    ? R[Id] extends { readonly variables: infer V extends string }
      ? V
      : string
    : R[Id] extends { readonly version: Ver; readonly variables: infer V extends string }
      ? V
      : R[Id] extends { readonly versions: { readonly [K in Ver & string]: infer V extends string } }
        ? V
        : string
  : string;

/** The variables of a prompt at a label, when the registry types that label; else plain strings. */
export type LabelVariablesOf<R, Id extends string, L extends string> = Id extends keyof R
  ? R[Id] extends { readonly labels: { readonly [K in L]: infer V extends string } }
    ? V
    : string
  : string;
