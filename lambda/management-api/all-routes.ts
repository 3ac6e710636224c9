import { accountRoutes } from './handlers/account-routes';
import { keyRoutes } from './handlers/key-routes';
import { memberRoutes } from './handlers/member-routes';
import { promptRoutes } from './handlers/prompt-routes';
import { auditRoutes } from './handlers/audit-routes';
import { usageRoutes } from './handlers/usage-routes';
import type { ManagementRoute } from './route';
import { MANAGEMENT_FUNCTIONS } from './routes';

export const ALL_ROUTES: readonly ManagementRoute[] = [...accountRoutes, ...promptRoutes, ...keyRoutes, ...memberRoutes, ...usageRoutes, ...auditRoutes];

/** The handlers of one function's routes, as routes.ts lists them; a route without a handler stops the function at cold start. */
export function routesOf(functionId: string): ManagementRoute[] {
  const fn = MANAGEMENT_FUNCTIONS.find((candidate) => candidate.id === functionId);
  if (!fn) throw new Error(`no management function ${functionId}`);
  return fn.routes.map(({ method, path }) => {
    const spec = ALL_ROUTES.find((route) => route.method === method && route.path === path);
    if (!spec) throw new Error(`no handler for ${method} ${path}`);
    return spec;
  });
}
