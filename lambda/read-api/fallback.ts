import { createFallbackHandler } from './handlers';
import { productionDependencies } from './runtime';

/** Lambda entry point for the gateway's default route. */
export const handler = createFallbackHandler(productionDependencies());
