import type { HttpRequest, ApiResult } from '../../http/http-event';
import type { Route, RouteName } from '../routes';
import type { PromptReader } from '../store/api-store';
import type { RememberedPrompts } from '../store/cached-prompt-store';
import type { RequestSides, RolloutAnswer, ServedPrompt } from '../served-rollouts';

/** What a handler gets once the middleware has routed, authenticated and counted the request. */
export interface RouteInput<N extends RouteName> {
  readonly route: Extract<Route, { name: N }>;
  readonly request: HttpRequest;
  readonly reader: PromptReader;
  /** The sides of the rollouts the answer serves, decided by the request's subject. */
  readonly rollouts: RolloutAnswer;
}

export type RouteHandler<N extends RouteName> = (input: RouteInput<N>) => Promise<ApiResult>;

export type RouteHandlers = { readonly [N in RouteName]?: RouteHandler<N> };

/** What a route's foresight sees: the request, whose account the container already knows, and nothing it must read. */
export interface ForesightInput<N extends RouteName> {
  readonly route: Extract<Route, { name: N }>;
  readonly request: HttpRequest;
  readonly reader: PromptReader;
  readonly sides: RequestSides;
  readonly remembered: RememberedPrompts;
}

/**
 * The prompts at rolling-out labels a request will answer, as far as memory tells without reading (none when it
 * would read): their sides are counted in the admission's own write (docs/rollouts.md "Served counts").
 */
export type RouteForesight<N extends RouteName> = (input: ForesightInput<N>) => readonly ServedPrompt[];

export type RouteForesights = { readonly [N in RouteName]?: RouteForesight<N> };
