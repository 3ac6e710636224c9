import { managementFunction } from './runtime';

/** Lambda entry point: ManageAccounts (routes.ts). */
export const handler = managementFunction('ManageAccounts');
