/**
 * How a receiver checks a delivery's signature, in TypeScript and in Python: the very code of docs/events.md
 * "Verifying a delivery", which test/webhooks/verification-samples.test.ts runs against signed deliveries.
 * The Webhooks page shows it beside a new secret; test/unit/dashboard/webhooks.test.ts holds these texts equal to
 * the documentation's blocks, so the two cannot drift apart.
 */

export const TYPESCRIPT_VERIFICATION = `import { createHmac, timingSafeEqual } from 'node:crypto';

/** True when \`body\` (the raw request body) was signed with \`secret\` (whsec_…) in the last 5 minutes. */
export function verifyWebhook(secret: string, headers: Record<string, string | undefined>, body: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures || !/^\\d+$/.test(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 5 * 60) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(\`\${id}.\${timestamp}.\${body}\`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature = ''] = entry.split(',');
    const given = Buffer.from(signature, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
`;

export const PYTHON_VERIFICATION = `import base64
import hashlib
import hmac
import time


def verify_webhook(secret: str, headers: dict, body: bytes) -> bool:
    """True when \`body\` (the raw request body) was signed with \`secret\` (whsec_...) in the last 5 minutes."""
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not msg_id or not timestamp or not signatures or not timestamp.isdigit():
        return False
    if abs(time.time() - int(timestamp)) > 5 * 60:
        return False
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(
        version == "v1" and hmac.compare_digest(signature, expected)
        for version, _, signature in (entry.partition(",") for entry in signatures.split(" "))
    )
`;
