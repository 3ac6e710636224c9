import { type ApiDependencies, createApiHandler } from './api-handler';
import { getPrompt } from './get-prompt';
import { listPrompts } from './list-prompts';

/** GET /prompts/{promptId} */
export const createGetPromptHandler = (deps: ApiDependencies) =>
  createApiHandler(deps, { getPrompt: getPrompt(deps.prompts) });

/** GET /prompts */
export const createListPromptsHandler = (deps: ApiDependencies) =>
  createApiHandler(deps, { listPrompts: listPrompts(deps.prompts) });

/**
 * Everything the gateway routes nowhere else: preflight, other methods (405), other paths (404),
 * and the API's own routes in forms the gateway does not match (`/prompts/` with an empty id).
 */
export const createFallbackHandler = (deps: ApiDependencies) =>
  createApiHandler(deps, { getPrompt: getPrompt(deps.prompts), listPrompts: listPrompts(deps.prompts) });
