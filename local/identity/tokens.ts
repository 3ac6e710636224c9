import { randomUUID } from 'node:crypto';
import type { SigningKey } from './signing-key';
import type { StoredUser } from './user-store';

/** ID and access tokens live an hour, as the deployed app client's do (lib/user-pool.ts). */
export const TOKEN_VALIDITY_SECONDS = 3600;

export interface IssuedTokens {
  readonly idToken: string;
  readonly accessToken: string;
  readonly expiresIn: number;
}

export interface TokenRequest {
  readonly key: SigningKey;
  readonly issuer: string;
  readonly clientId: string;
  readonly user: StoredUser;
  /** When the person signed in (seconds), which a code exchange keeps. */
  readonly authTime: number;
  readonly scope: string;
  readonly now?: number;
}

/** The claims Cognito puts in its tokens, so the functions read the same ones locally as deployed. */
export function issueTokens(request: TokenRequest): IssuedTokens {
  const iat = Math.floor((request.now ?? Date.now()) / 1000);
  const common = {
    sub: request.user.userId,
    iss: request.issuer,
    origin_jti: randomUUID(),
    event_id: randomUUID(),
    auth_time: request.authTime,
    iat,
    exp: iat + TOKEN_VALIDITY_SECONDS,
  };
  const idToken = request.key.sign({
    ...common,
    aud: request.clientId,
    token_use: 'id',
    'cognito:username': request.user.userId,
    email: request.user.email,
    email_verified: request.user.emailVerified,
    jti: randomUUID(),
  });
  const accessToken = request.key.sign({
    ...common,
    client_id: request.clientId,
    token_use: 'access',
    scope: request.scope,
    username: request.user.userId,
    jti: randomUUID(),
  });
  return { idToken, accessToken, expiresIn: TOKEN_VALIDITY_SECONDS };
}
