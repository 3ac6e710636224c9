import { managementFunction } from './runtime';

/** Lambda entry point: ManageMembers (routes.ts). */
export const handler = managementFunction('ManageMembers');
