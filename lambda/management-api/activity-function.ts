import { managementFunction } from './runtime';

/** Lambda entry point: ManageActivity (routes.ts). */
export const handler = managementFunction('ManageActivity');
