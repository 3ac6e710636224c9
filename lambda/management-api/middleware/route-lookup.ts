import type { ManagementMiddleware } from '../management-context';
import { notFound } from '../management-errors';
import type { ManagementRoute } from '../route';

/** The route of the REST API resource and method the gateway matched, among this function's: 404 for any other. */
export function routeLookup(routes: readonly ManagementRoute[]): ManagementMiddleware {
  const byKey = new Map(routes.map((route) => [`${route.method} ${route.path}`, route]));
  return {
    before: ({ event, context }) => {
      const route = byKey.get(`${event.httpMethod.toUpperCase()} ${event.resource}`);
      if (!route) throw notFound();
      context.route = route;
    },
  };
}
