import { managementFunction } from './runtime';

/** Lambda entry point: ManageKeys (routes.ts). */
export const handler = managementFunction('ManageKeys');
