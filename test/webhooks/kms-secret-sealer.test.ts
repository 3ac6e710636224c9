import { DecryptCommand, EncryptCommand, IncorrectKeyException, InvalidCiphertextException, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { ENCRYPTION_CONTEXT, KmsSecretSealer } from '../../lambda/webhook-delivery/kms-secret-sealer';
import { SealedSecretError, SealerUnavailableError } from '../../lambda/webhook-delivery/secret-sealer';

/** The sealer's calls to KMS over a mocked SDK: the shapes of Encrypt and Decrypt as the key policy will see them. */
const kms = mockClient(KMSClient);
beforeEach(() => kms.reset());

const KEY = 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BLOB = Uint8Array.from([1, 2, 3, 250, 251, 252]);
const sealer = () => new KmsSecretSealer(KEY, new KMSClient({ region: 'us-east-1' }));

test('seals with Encrypt under the stack key and the webhook-secret context, as kms1: and the blob in base64', async () => {
  kms.on(EncryptCommand).resolves({ CiphertextBlob: BLOB, KeyId: KEY });
  const sealed = await sealer().seal(SECRET);
  expect(sealed).toBe(`kms1:${Buffer.from(BLOB).toString('base64')}`);
  expect(sealed).not.toContain(SECRET.slice('whsec_'.length));
  const input = kms.commandCalls(EncryptCommand)[0]?.args[0].input;
  expect(input).toMatchObject({ KeyId: KEY, EncryptionContext: { purpose: 'webhook-secret' } });
  expect(Buffer.from(input?.Plaintext ?? new Uint8Array()).toString('utf8')).toBe(SECRET);
});

test('unseals with Decrypt naming the key and the same context', async () => {
  kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from(SECRET, 'utf8'), KeyId: KEY });
  expect(await sealer().unseal(`kms1:${Buffer.from(BLOB).toString('base64')}`)).toBe(SECRET);
  const input = kms.commandCalls(DecryptCommand)[0]?.args[0].input;
  expect(input).toMatchObject({ KeyId: KEY, EncryptionContext: ENCRYPTION_CONTEXT });
  expect(Buffer.from(input?.CiphertextBlob ?? new Uint8Array())).toEqual(Buffer.from(BLOB));
});

test('a secret sealed otherwise (the local form) is refused without calling KMS', async () => {
  await expect(sealer().unseal('local1:AAAA')).rejects.toThrow(SealedSecretError);
  expect(kms.calls()).toHaveLength(0);
});

test('a blob KMS cannot open is a SealedSecretError', async () => {
  kms.on(DecryptCommand).rejects(new InvalidCiphertextException({ message: 'bad', $metadata: {} }));
  await expect(sealer().unseal('kms1:AQID')).rejects.toThrow('does not open');
});

test('any other KMS failure stays what it is, for the caller to retry', async () => {
  kms.on(DecryptCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
  await expect(sealer().unseal('kms1:AQID')).rejects.toMatchObject({ name: 'ThrottlingException' });
});

test('a blob made under another key is a SealedSecretError too', async () => {
  kms.on(DecryptCommand).rejects(new IncorrectKeyException({ message: 'wrong key', $metadata: {} }));
  await expect(sealer().unseal('kms1:AQID')).rejects.toThrow(SealedSecretError);
});

test('a seal KMS does not answer in time is a SealerUnavailableError, for the management API to answer 503', async () => {
  kms.on(EncryptCommand).rejects(Object.assign(new Error('socket timed out'), { name: 'TimeoutError' }));
  await expect(sealer().seal(SECRET)).rejects.toThrow(SealerUnavailableError);
});
