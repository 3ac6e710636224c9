import { checkUrl, type Resolve } from '../../lambda/webhook-delivery/destination';
import type { WebhookTools } from '../../lambda/webhook-delivery/sealer-from-config';
import { LocalSecretSealer } from '../../lambda/webhook-delivery/secret-sealer';

/** No test looks a name up in DNS: every name is unknown, so only loopback addresses and `localhost` pass. */
const noNames: Resolve = async (host) => {
  throw Object.assign(new Error(`the tests resolve no names (${host})`), { code: 'ENOTFOUND' });
};

/** Webhook secrets sealed with a key of this run; URLs checked as npm start checks them (loopback http allowed). */
export const localWebhookTools = (): WebhookTools => ({
  sealer: new LocalSecretSealer(LocalSecretSealer.generateKey()),
  checkDestination: (url) => checkUrl(url, 'local', noNames),
});
