import { ConfigError, loadDeliveryConfig, loadDispatcherConfig } from '../../lambda/config';

/** What the events' functions read at cold start (docs/deploy.md "Configuration of the functions"). */

const STORE = { TABLE_NAME: 'prompts' };
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/deliveries';

describe('the dispatcher', () => {
  it('reads the bus and the delivery queue', () => {
    expect(loadDispatcherConfig({ ...STORE, EVENT_BUS_NAME: 'bus', DELIVERY_QUEUE_URL: QUEUE })).toMatchObject({
      eventBusName: 'bus',
      deliveryQueueUrl: QUEUE,
    });
  });

  it.each(['EVENT_BUS_NAME', 'DELIVERY_QUEUE_URL'])('stops, naming %s, when it is missing', (name) => {
    const env: Record<string, string> = { ...STORE, EVENT_BUS_NAME: 'bus', DELIVERY_QUEUE_URL: QUEUE };
    delete env[name];
    expect(() => loadDispatcherConfig(env)).toThrow(new ConfigError(`Missing required environment variable ${name}`));
  });
});

describe('the delivery function', () => {
  it('reads the queue, the key and the deployed destination policy', () => {
    expect(loadDeliveryConfig({ ...STORE, DELIVERY_QUEUE_URL: QUEUE, WEBHOOK_KEY_ID: 'arn:aws:kms:us-east-1:123456789012:key/abc' })).toMatchObject({
      deliveryQueueUrl: QUEUE,
      webhooks: { kmsKeyId: 'arn:aws:kms:us-east-1:123456789012:key/abc', destinations: 'deployed' },
    });
  });

  it('stops, naming WEBHOOK_KEY_ID, when it has no key to open the secrets with', () => {
    expect(() => loadDeliveryConfig({ ...STORE, DELIVERY_QUEUE_URL: QUEUE })).toThrow(new ConfigError('Missing required environment variable WEBHOOK_KEY_ID'));
  });

  it('stops, naming DELIVERY_QUEUE_URL, when it is not an absolute URL', () => {
    expect(() => loadDeliveryConfig({ ...STORE, DELIVERY_QUEUE_URL: 'deliveries', WEBHOOK_KEY_ID: 'k' })).toThrow(/DELIVERY_QUEUE_URL must be an absolute URL/);
  });
});
