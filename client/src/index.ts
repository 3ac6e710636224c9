/**
 * @prompt-retrieval/client: prompts from the prompt retrieval service, cached in memory, revalidated in
 * the background, served from a copy when the service or the quota fails, with typed `${variable}`
 * filling. Runs wherever there is a global `fetch`: Node 20+, browsers, edge runtimes.
 */
export { createPromptClient } from './client.js';
export type { GetOptions, ListOptions, PromptClient, PromptClientOptions } from './client.js';
export {
  BadRequestError,
  InvalidOptionsError,
  LabelNotFoundError,
  NotFoundError,
  PromptClientError,
  ServiceUnavailableError,
  TemplateVariablesError,
  UnauthorizedError,
  UsageLimitExceededError,
  VersionNotFoundError,
} from './errors.js';
export type { PromptErrorCode } from './errors.js';
export type { FetchFunction, FetchInit, FetchResponse } from './http.js';
export { bucketOf, sideFor } from './rollout.js';
export type { RolloutShare, RolloutSide } from './rollout.js';
export { SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_VERSION } from './snapshot.js';
export type { PromptSnapshot } from './snapshot.js';
export { parseTemplate, PromptTemplate } from './template.js';
export type { Segment } from './template.js';
export type {
  ClientPrompt,
  CompiledMessages,
  CompileOptions,
  KnownPromptId,
  LabelVariablesOf,
  PromptConfig,
  PromptData,
  PromptRegistry,
  PromptRollout,
  PromptShape,
  PromptSource,
  Quota,
  TemplateValue,
  TemplateValues,
  UntypedPrompts,
  VariablesOf,
} from './types.js';
