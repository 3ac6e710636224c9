import type { MiddlewareObj } from '@middy/core';
import { routeNotFound } from '../../http/api-error';
import { type ApiEvent, type ApiResult, readHttpRequest } from '../../http/http-event';
import { matchRoute, type RouteName } from '../routes';
import type { ApiContext } from '../api-context';

/** Method, then path (405 before 404), and only the routes this function serves. */
export const routeGuard = (served: readonly RouteName[]): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: (request) => {
    const httpRequest = readHttpRequest(request.event);
    request.context.httpRequest = httpRequest;
    const route = matchRoute(httpRequest.method, httpRequest.path);
    if (!served.includes(route.name)) throw routeNotFound();
    request.context.route = route;
  },
});
