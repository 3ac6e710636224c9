import { createGetPromptHandler } from './handlers';
import { productionDependencies } from './runtime';

/** Lambda entry point for GET /prompts/{promptId}. */
export const handler = createGetPromptHandler(productionDependencies());
