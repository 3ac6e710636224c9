import { hrefOf, parseRoute, type Route } from '../../../dashboard/src/logic/route';

describe('dashboard routes in the address fragment', () => {
  const routes: Route[] = [
    { page: 'home' },
    { page: 'prompts', accountId: 'acme' },
    { page: 'prompt', accountId: 'acme', promptId: 'web.welcome-email' },
    { page: 'playground', accountId: 'acme', promptId: 'welcome' },
    { page: 'version', accountId: 'acme', promptId: 'welcome', version: '1.0.1' },
    { page: 'compare', accountId: 'acme', promptId: 'welcome', from: '1.0.0', to: '1.0.1' },
    { page: 'keys', accountId: 'acme' },
    { page: 'webhooks', accountId: 'acme' },
    { page: 'usage', accountId: 'acme' },
    { page: 'members', accountId: 'acme' },
    { page: 'audit', accountId: 'acme' },
    { page: 'change-requests', accountId: 'acme' },
    { page: 'change-request', accountId: 'acme', requestId: 'req_01J' },
    { page: 'settings', accountId: 'acme' },
  ];

  test.each(routes.map((route) => [hrefOf(route), route]))('%s reads back as the same page', (href, route) => {
    expect(parseRoute(href)).toEqual(route);
  });

  test('the change requests keep the address links already carry: requests/ and the request id', () => {
    expect(hrefOf({ page: 'change-requests', accountId: 'acme' })).toBe('#/accounts/acme/requests');
    expect(hrefOf({ page: 'change-request', accountId: 'acme', requestId: 'req_01J' })).toBe('#/accounts/acme/requests/req_01J');
    expect(parseRoute('#/accounts/acme/change-requests')).toEqual({ page: 'home' });
  });

  test('an account alone opens its prompts', () => {
    expect(parseRoute('#/accounts/acme')).toEqual({ page: 'prompts', accountId: 'acme' });
  });

  test('anything else is home', () => {
    expect(parseRoute('')).toEqual({ page: 'home' });
    expect(parseRoute('#/nowhere')).toEqual({ page: 'home' });
    expect(parseRoute('#/accounts/acme/secrets')).toEqual({ page: 'home' });
  });

  test('ids with characters a path would misread are encoded', () => {
    const route: Route = { page: 'prompt', accountId: 'a b', promptId: 'x/y' };
    expect(hrefOf(route)).toBe('#/accounts/a%20b/prompts/x%2Fy');
    expect(parseRoute(hrefOf(route))).toEqual(route);
  });
});
