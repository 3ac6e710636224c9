import { createHmac } from 'node:crypto';
import { generateSecret, SignatureError, sign, TIMESTAMP_TOLERANCE_SECONDS, verify } from '../../lambda/webhook-delivery/signature';

/**
 * The reference vector of the Standard Webhooks specification's own libraries: standard-webhooks/standard-webhooks,
 * libraries/javascript/src/webhook.test.ts, test "sign function works" (the other libraries test the same values).
 */
const REFERENCE = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
} as const;

const content = { id: 'evt_20261127054200123_1a2b3c4d', timestamp: 1_795_000_000, body: '{"id":"evt_20261127054200123_1a2b3c4d","type":"webhook.test"}' };
const at = (timestamp: number) => new Date(timestamp * 1000);

test('a new secret is whsec_ and the base64 of 32 random bytes', () => {
  const secret = generateSecret();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
  expect(generateSecret()).not.toBe(secret);
});

test('signing the specification reference message gives its reference signature', () => {
  expect(sign({ id: REFERENCE.id, timestamp: REFERENCE.timestamp, body: REFERENCE.body }, [REFERENCE.secret])).toBe(REFERENCE.signature);
});

test('the signature is the base64 HMAC-SHA256 of id.timestamp.body keyed by the decoded secret, computed independently', () => {
  const secret = generateSecret();
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${content.id}.${content.timestamp}.${content.body}`).digest('base64');
  expect(sign(content, [secret])).toBe(`v1,${expected}`);
});

test('with two valid secrets the header holds both signatures, space-separated, each verifying with its own secret', () => {
  const [current, retired] = [generateSecret(), generateSecret()];
  const header = sign(content, [current, retired]);
  expect(header.split(' ')).toEqual([sign(content, [current]), sign(content, [retired])]);
  for (const secret of [current, retired]) {
    expect(() =>
      verify({ id: content.id, timestamp: String(content.timestamp), signature: header, body: content.body }, secret, at(content.timestamp)),
    ).not.toThrow();
  }
});

test('signing with no secret is refused', () => {
  expect(() => sign(content, [])).toThrow(SignatureError);
});

describe('verify', () => {
  const secret = generateSecret();
  const signed = { id: content.id, timestamp: String(content.timestamp), signature: sign(content, [secret]), body: content.body };

  test('accepts the reference delivery at its own time', () => {
    const reference = { id: REFERENCE.id, timestamp: String(REFERENCE.timestamp), signature: REFERENCE.signature, body: REFERENCE.body };
    expect(() => verify(reference, REFERENCE.secret, at(REFERENCE.timestamp))).not.toThrow();
  });

  test('refuses a body changed by one character', () => {
    expect(() => verify({ ...signed, body: `${content.body} ` }, secret, at(content.timestamp))).toThrow('no signature matches');
  });

  test('refuses another secret', () => {
    expect(() => verify(signed, generateSecret(), at(content.timestamp))).toThrow('no signature matches');
  });

  test('refuses a timestamp more than 5 minutes from now, either way', () => {
    expect(() => verify(signed, secret, at(content.timestamp + TIMESTAMP_TOLERANCE_SECONDS + 1))).toThrow('too far');
    expect(() => verify(signed, secret, at(content.timestamp - TIMESTAMP_TOLERANCE_SECONDS - 1))).toThrow('too far');
    expect(() => verify(signed, secret, at(content.timestamp + TIMESTAMP_TOLERANCE_SECONDS))).not.toThrow();
  });

  test('refuses missing headers, a timestamp that is not seconds, and a truncated signature', () => {
    expect(() => verify({ ...signed, id: undefined }, secret, at(content.timestamp))).toThrow('missing');
    expect(() => verify({ ...signed, timestamp: 'soon' }, secret, at(content.timestamp))).toThrow('Unix seconds');
    expect(() => verify({ ...signed, signature: signed.signature.slice(0, 10) }, secret, at(content.timestamp))).toThrow('no signature matches');
    expect(() => verify({ ...signed, signature: 'v1,' }, secret, at(content.timestamp))).toThrow('no signature matches');
  });

  test('ignores signatures of other versions and finds the valid one among several', () => {
    const digest = signed.signature.slice(3);
    expect(() => verify({ ...signed, signature: `v2,${digest}` }, secret, at(content.timestamp))).toThrow('no signature matches');
    const several = `v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,${digest} ${signed.signature}`;
    expect(() => verify({ ...signed, signature: several }, secret, at(content.timestamp))).not.toThrow();
  });
});
