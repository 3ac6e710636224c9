import { managementFunction } from './runtime';

/** Lambda entry point: ManageWebhooks (routes.ts). */
export const handler = managementFunction('ManageWebhooks');
