import { createListPromptsHandler } from './handlers';
import { productionDependencies } from './runtime';

/** Lambda entry point for GET /prompts. */
export const handler = createListPromptsHandler(productionDependencies());
