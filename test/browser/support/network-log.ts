import type { Page } from 'playwright-core';

/** One request as it went over the wire, preflights included (Playwright's own events leave those out). */
export interface Exchange {
  readonly requestId: string;
  /** Chromium's resource type: `Preflight`, `Fetch`, `Document`, ... */
  type: string;
  method: string;
  url: string;
  /** Header names in lower case; the raw headers sent, where Chromium reports them. */
  requestHeaders: Record<string, string>;
  /** The status on the wire: a revalidation answered 304 shows 304 here even if the page saw its cached 200. */
  status: number | undefined;
  responseHeaders: Record<string, string>;
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** Records a page's network traffic through the Chrome DevTools Protocol. */
export class NetworkLog {
  private readonly byId = new Map<string, Exchange>();

  static async attach(page: Page): Promise<NetworkLog> {
    const log = new NetworkLog();
    const session = await page.context().newCDPSession(page);
    session.on('Network.requestWillBeSent', ({ requestId, request, type }) => {
      const exchange = log.exchange(requestId);
      Object.assign(exchange, { type: type ?? exchange.type, method: request.method, url: request.url });
      exchange.requestHeaders = { ...lowerCaseKeys(request.headers), ...exchange.requestHeaders };
    });
    session.on('Network.requestWillBeSentExtraInfo', ({ requestId, headers }) => {
      const exchange = log.exchange(requestId);
      exchange.requestHeaders = { ...exchange.requestHeaders, ...lowerCaseKeys(headers) };
    });
    session.on('Network.responseReceived', ({ requestId, type, response }) => {
      const exchange = log.exchange(requestId);
      exchange.type = type;
      exchange.url = response.url;
      exchange.status ??= response.status;
      exchange.responseHeaders = { ...lowerCaseKeys(response.headers), ...exchange.responseHeaders };
    });
    session.on('Network.responseReceivedExtraInfo', ({ requestId, statusCode, headers }) => {
      const exchange = log.exchange(requestId);
      exchange.status = statusCode;
      exchange.responseHeaders = { ...exchange.responseHeaders, ...lowerCaseKeys(headers) };
    });
    await session.send('Network.enable');
    return log;
  }

  /** Every exchange with a URL under `base`, in the order the page started them. */
  to(base: string): Exchange[] {
    return [...this.byId.values()].filter((exchange) => exchange.url.startsWith(base));
  }

  private exchange(requestId: string): Exchange {
    let exchange = this.byId.get(requestId);
    if (!exchange) {
      exchange = { requestId, type: '', method: '', url: '', requestHeaders: {}, status: undefined, responseHeaders: {} };
      this.byId.set(requestId, exchange);
    }
    return exchange;
  }
}
