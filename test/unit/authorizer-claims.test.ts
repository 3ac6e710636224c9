import { authorizerClaims } from '../../local/identity/verify-token';

/** Claims in the shape a REST API's Cognito user-pool authorizer puts in requestContext.authorizer.claims. */

describe('authorizerClaims', () => {
  it('writes exp and iat as Java dates in UTC, as API Gateway does', () => {
    const claims = authorizerClaims({ exp: 1544116103, iat: 1544112503 });

    expect(claims).toEqual({ exp: 'Thu Dec 06 17:08:23 UTC 2018', iat: 'Thu Dec 06 16:08:23 UTC 2018' });
  });

  it('writes other numbers and booleans as their text, lists joined by commas, and drops nothing else', () => {
    const claims = authorizerClaims({
      auth_time: 1544112503,
      email_verified: true,
      'cognito:groups': ['admin', 'staging-manager'],
      sub: 'a993f745-d063-4321-ac6e-fd9a18f8b931',
      token_use: 'id',
    });

    expect(claims).toEqual({
      auth_time: '1544112503',
      email_verified: 'true',
      'cognito:groups': 'admin,staging-manager',
      sub: 'a993f745-d063-4321-ac6e-fd9a18f8b931',
      token_use: 'id',
    });
  });
});
