import { productionDependencies } from '../read-api/runtime';
import { createMcpHandler } from './mcp-handler';

/** Lambda entry point for every method of /mcp: POST (the MCP endpoint), its preflight and its 405s. */
export const handler = createMcpHandler(productionDependencies());
