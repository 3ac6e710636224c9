import { type ApiDependencies, createApiHandler } from './api-handler';
import { foreseeGetPrompt, getPrompt } from './get-prompt-handler';
import { foreseeListPrompts, listPrompts } from './list-prompts-handler';

/**
 * Every function answers every request the same way: the gateway's choice of function decides scaling,
 * logs and metrics, never the answer. Forms of a path the gateways may route either way (`/prompts/`,
 * which a REST API may match to `/prompts` or to `{proxy+}`, and `sam local`, which may give GET on a
 * resource with both GET and ANY to either) then need no agreement between them.
 */
const allRoutes = (deps: ApiDependencies) => ({ getPrompt: getPrompt(deps.prompts), listPrompts: listPrompts(deps.prompts) });
const options = { foresights: { getPrompt: foreseeGetPrompt, listPrompts: foreseeListPrompts } };

/** GET /prompts/{promptId} */
export const createGetPromptHandler = (deps: ApiDependencies) => createApiHandler(deps, allRoutes(deps), options);

/** GET /prompts */
export const createListPromptsHandler = (deps: ApiDependencies) => createApiHandler(deps, allRoutes(deps), options);

/** Everything else: preflight, other methods (405), other paths (404). */
export const createFallbackHandler = (deps: ApiDependencies) => createApiHandler(deps, allRoutes(deps), options);
