import * as net from 'node:net';
import { createKmsClient, KMS_REQUEST_TIMEOUT_MS, KmsSecretSealer } from '../../lambda/webhook-delivery/kms-secret-sealer';
import { SealerUnavailableError } from '../../lambda/webhook-delivery/secret-sealer';

/**
 * The deployed sealer's own KMS client against a KMS that accepts the connection and never answers (a server on
 * 127.0.0.1): a person creating a webhook gets an error to retry within seconds, not a request hung until the
 * function's timeout.
 */
let silent: net.Server;
let port: number;
const accepted: net.Socket[] = [];

beforeAll(async () => {
  silent = net.createServer((socket) => void accepted.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});
afterAll(async () => {
  for (const socket of accepted) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

test("a seal KMS never answers is a SealerUnavailableError within its attempts' request timeouts", async () => {
  const client = createKmsClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const started = Date.now();
  try {
    await expect(new KmsSecretSealer('alias/test', client).seal('whsec_test')).rejects.toThrow(SealerUnavailableError);
    expect(Date.now() - started).toBeLessThan(2 * KMS_REQUEST_TIMEOUT_MS + 2_000);
  } finally {
    client.destroy();
  }
}, 20_000);
