import { createHash } from 'node:crypto';

/** A strong validator: equal bodies, and only equal bodies, share it. */
export function strongEtag(body: string): string {
  return `"${createHash('sha256').update(body, 'utf8').digest('base64url')}"`;
}

/** RFC 9110 If-None-Match: weak comparison, `*` matches any current representation. */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const candidates = header.split(',').map((tag) => tag.trim());
  return candidates.some((tag) => tag === '*' || tag.replace(/^W\//, '') === etag);
}
