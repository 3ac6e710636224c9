/** What the dashboard reads from an ID token: who it names and until when. It never verifies one; the API does. */
export interface IdTokenClaims {
  readonly sub: string;
  readonly email: string;
  /** Seconds since the epoch. */
  readonly exp: number;
}

function decodePart(part: string): unknown {
  const base64 = part
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(part.length / 4) * 4, '=');
  const binary = atob(base64);
  const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** The claims, or undefined when the text is not a JWT with them. */
export function claimsOf(token: string): IdTokenClaims | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined || token.split('.').length !== 3) return undefined;
  try {
    const claims = decodePart(payload) as Record<string, unknown>;
    if (typeof claims.sub !== 'string' || typeof claims.exp !== 'number') return undefined;
    return { sub: claims.sub, email: typeof claims.email === 'string' ? claims.email : '', exp: claims.exp };
  } catch {
    return undefined;
  }
}

/** A token this close to its expiry is treated as expired: a request sent with it could arrive too late. */
export const EXPIRY_MARGIN_SECONDS = 30;

export function isExpired(claims: IdTokenClaims, nowMs: number): boolean {
  return claims.exp - EXPIRY_MARGIN_SECONDS <= nowMs / 1000;
}
