import type { Context } from 'aws-lambda';
import type { HttpRequest } from '../http/http-event';
import type { Route } from '../http/routes';

/** The caller, once its key is verified. */
export interface Principal {
  readonly keyId: string;
  readonly keyHash: string;
  readonly accountId: string;
  readonly monthlyLimit: number;
}

/** The key's quota for this request, once a unit was asked for. */
export interface UsageState {
  readonly month: string;
  readonly limit: number;
  readonly resetsAt: number;
  used: number;
  /** A unit was taken for this request, and must be given back if it ends in 5xx. */
  charged: boolean;
  /** Why a unit taken for a failed request could not be given back, if it could not. */
  returnFailure?: string;
}

/** What the middleware learns about a request, in the order it learns it. */
export interface ApiContext extends Context {
  httpRequest?: HttpRequest;
  route?: Route;
  principal?: Principal;
  usage?: UsageState;
}
