import type { HttpRequest, ApiResult } from '../../http/http-event';
import type { Route, RouteName } from '../routes';
import type { PromptReader } from '../../table/read-path/api-store';

/** What a handler gets once the middleware has routed, authenticated and counted the request. */
export interface RouteInput<N extends RouteName> {
  readonly route: Extract<Route, { name: N }>;
  readonly request: HttpRequest;
  readonly reader: PromptReader;
}

export type RouteHandler<N extends RouteName> = (input: RouteInput<N>) => Promise<ApiResult>;

export type RouteHandlers = { readonly [N in RouteName]?: RouteHandler<N> };
