import { managementFunction } from './runtime';

/** Lambda entry point: ManagePrompts (routes.ts). */
export const handler = managementFunction('ManagePrompts');
