import type { ApiEvent } from '../../http/http-event';
import type { ManagementMiddleware } from '../management-context';
import { unauthorized } from '../management-errors';
import type { Caller } from '../route';

/**
 * The caller, from what the REST API's Cognito user-pool authorizer put in the event (its claims, as
 * strings). The functions never see or verify a token: an event without the claims of an ID token
 * had no valid one, and is answered 401.
 */
export function callerOf(event: ApiEvent): Caller | undefined {
  const claims: unknown = event.requestContext?.authorizer?.claims;
  if (typeof claims !== 'object' || claims === null) return undefined;
  const [sub, email, tokenUse]: unknown[] = [Reflect.get(claims, 'sub'), Reflect.get(claims, 'email'), Reflect.get(claims, 'token_use')];
  if (typeof sub !== 'string' || sub === '' || typeof email !== 'string' || email === '') return undefined;
  if (tokenUse !== undefined && tokenUse !== 'id') return undefined;
  return { userId: sub, email: email.toLowerCase() };
}

/** 401 without a caller; nothing is recorded, as no account is known to be theirs. */
export const signedIn = (): ManagementMiddleware => ({
  before: ({ event, context }) => {
    const caller = callerOf(event);
    if (!caller) throw unauthorized();
    context.caller = caller;
  },
});
