import type { ApiEvent } from '../http/http-event';
import type { Caller } from './route';

/**
 * The caller, from what the REST API's Cognito user-pool authorizer put in the event (its claims, as
 * strings). The functions never see or verify a token: an event without the claims of an ID token
 * had no valid one, and is answered 401.
 */
export function callerOf(event: ApiEvent): Caller | undefined {
  const claims: unknown = (event.requestContext?.authorizer as { claims?: unknown } | null | undefined)?.claims;
  if (typeof claims !== 'object' || claims === null) return undefined;
  const { sub, email, token_use: tokenUse } = claims as Record<string, unknown>;
  if (typeof sub !== 'string' || sub === '' || typeof email !== 'string' || email === '') return undefined;
  if (tokenUse !== undefined && tokenUse !== 'id') return undefined;
  return { userId: sub, email: email.toLowerCase() };
}
