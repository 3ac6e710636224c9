/**
 * The dashboard's Content-Security-Policy: the same policy CloudFront sends (lib/dashboard-hosting.ts) and
 * `npm start`'s dashboard origin sends (local/dashboard-server.ts). The page runs only its own scripts, and
 * talks to its own origin (the management API under /api) and to the user pool's token endpoint.
 * Plain data, so local code can import it without CDK.
 */
export function dashboardContentSecurityPolicy(identityOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${identityOrigin}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * No referrer at all: the page is opened with `?code=` from the sign-in redirect, and nothing it loads or
 * links to may learn that code.
 */
export const DASHBOARD_REFERRER_POLICY = 'no-referrer';
