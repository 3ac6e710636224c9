import { flushLogCapture, installLogCapture, registerBearerKeys } from './log-capture';

installLogCapture();
afterAll(flushLogCapture);

// Keys sent over HTTP (to a local stack a test started) are the run's keys too.
const originalFetch = globalThis.fetch;
globalThis.fetch = (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
  if (input instanceof Request) registerBearerKeys(input.headers);
  registerBearerKeys(init?.headers);
  return originalFetch(input, init);
};
