import { claimsOf, EXPIRY_MARGIN_SECONDS, isExpired } from '../../../dashboard/src/auth/id-token';

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const token = (claims: unknown) => `${encode({ alg: 'RS256' })}.${encode(claims)}.signature`;

describe('reading an ID token', () => {
  test('gives who it names and when it expires', () => {
    expect(claimsOf(token({ sub: 'u-1', email: 'ada@example.com', exp: 2_000_000_000, token_use: 'id' }))).toEqual({
      sub: 'u-1',
      email: 'ada@example.com',
      exp: 2_000_000_000,
    });
  });

  test('reads non-ASCII claims as UTF-8', () => {
    expect(claimsOf(token({ sub: 'u', email: 'zoë@example.com', exp: 1 }))?.email).toBe('zoë@example.com');
  });

  test('what is not a JWT with sub and exp is no token', () => {
    expect(claimsOf('not-a-token')).toBeUndefined();
    expect(claimsOf('a.b.c')).toBeUndefined();
    expect(claimsOf(token({ email: 'x@example.com', exp: 1 }))).toBeUndefined();
    expect(claimsOf(`${token({ sub: 'u', exp: 1 })}.extra`)).toBeUndefined();
  });

  test('a token counts as expired shortly before its exp, so no request leaves with one about to lapse', () => {
    const claims = { sub: 'u', email: '', exp: 1_000 };
    expect(isExpired(claims, (1_000 - EXPIRY_MARGIN_SECONDS - 1) * 1000)).toBe(false);
    expect(isExpired(claims, (1_000 - EXPIRY_MARGIN_SECONDS) * 1000)).toBe(true);
  });
});
