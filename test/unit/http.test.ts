import { ApiError } from '../../lambda/http/api-error';
import { ifNoneMatchMatches, strongEtag } from '../../lambda/read-api/etag';
import { type ApiEvent, readHttpRequest } from '../../lambda/http/http-event';
import { matchRoute } from '../../lambda/read-api/routes';
import { apiEvent } from '../support/events';

function statusOf(run: () => unknown): number | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof ApiError ? error.statusCode : -1;
  }
}

describe('routing', () => {
  test('GET /prompts is the list', () => expect(matchRoute('GET', '/prompts')).toEqual({ name: 'listPrompts' }));

  test('GET /prompts/{promptId} is one prompt, with the id percent-decoded', () => {
    expect(matchRoute('GET', '/prompts/welcome')).toEqual({ name: 'getPrompt', promptId: 'welcome' });
    expect(matchRoute('GET', '/prompts/a%2Db')).toEqual({ name: 'getPrompt', promptId: 'a-b' });
    expect(matchRoute('GET', '/prompts/')).toEqual({ name: 'getPrompt', promptId: '' });
  });

  test('the method is checked before the path', () => {
    expect(statusOf(() => matchRoute('POST', '/nowhere'))).toBe(405);
    expect(statusOf(() => matchRoute('HEAD', '/prompts'))).toBe(405);
  });

  test.each([['/'], ['/prompts/'.concat('a/b')], ['/prompts/x/'], ['/promptsx'], ['/prompts/../prompts']])('GET %s is no route', (path) =>
    expect(statusOf(() => matchRoute('GET', path))).toBe(404),
  );
});

describe('reading events', () => {
  test('the REST API event: method, path, lower-cased headers and query', () => {
    const event = apiEvent('GET', '/prompts/x?version=1.0.0', { headers: { 'If-None-Match': '"a"' } });
    expect(readHttpRequest(event)).toEqual({
      method: 'GET',
      path: '/prompts/x',
      headers: { 'if-none-match': '"a"' },
      query: { version: '1.0.0' },
      authorization: [],
    });
  });

  test('a path that still carries the stage (a custom domain without a base path): the stage is not part of it', () => {
    const event = apiEvent('GET', '/prompts');
    event.path = '/prod/prompts';
    event.requestContext.stage = 'prod';
    expect(readHttpRequest(event).path).toBe('/prompts');
  });

  test('repeated query parameters are joined with commas, whatever the last one was', () => {
    const event = apiEvent('GET', '/prompts?include_versions=true&include_versions=false', {
      headers: { Authorization: 'Bearer k' },
    });
    expect(event.queryStringParameters).toEqual({ include_versions: 'false' });
    expect(readHttpRequest(event)).toEqual({
      method: 'GET',
      path: '/prompts',
      headers: { authorization: 'Bearer k' },
      query: { include_versions: 'true,false' },
      authorization: ['Bearer k'],
    });
  });

  test('every Authorization header is read, in any case of its name: the REST API keeps repeats in multiValueHeaders', () => {
    const event = apiEvent('GET', '/prompts', { rawHeaders: ['Authorization', 'Bearer a', 'authorization', 'Bearer b'] });
    expect(event.headers).toEqual({ Authorization: 'Bearer b' });
    expect(readHttpRequest(event).authorization).toEqual(['Bearer a', 'Bearer b']);
  });

  test('an event with case variants as separate names, and no multiValueHeaders, still shows both', () => {
    const event = apiEvent('GET', '/prompts');
    event.headers = { Authorization: 'Bearer a', AUTHORIZATION: 'Bearer b' };
    event.multiValueHeaders = {};
    expect(readHttpRequest(event).authorization).toEqual(['Bearer a', 'Bearer b']);
  });
});

/** Every name an object inherits, and the one that sets what it inherits from. */
const PROTOTYPE_NAMES = [...new Set(['__proto__', ...Object.getOwnPropertyNames(Object.prototype)])];

describe('names are data: a header or parameter named after Object.prototype is one more name', () => {
  test.each(PROTOTYPE_NAMES)('%s as a query parameter and a header, in the deployed event (parsed JSON)', (name) => {
    // The deployed function gets its event through JSON.parse, where `__proto__` is an own name.
    const event = JSON.parse(JSON.stringify(apiEvent('GET', '/prompts/x', { rawHeaders: [name, 'h'], query: { [name]: 'q' } }))) as ApiEvent;
    const request = readHttpRequest(event);
    expect(Object.keys(request.headers)).toEqual([name.toLowerCase()]);
    expect(request.headers[name.toLowerCase()]).toBe('h');
    expect(Object.keys(request.query)).toEqual([name]);
    expect(request.query[name]).toBe('q');
    expect(request.query.version).toBeUndefined();
    expect(request.authorization).toEqual([]);
  });

  test.each(PROTOTYPE_NAMES)('%s read from a request that did not send it is absent', (name) => {
    const request = readHttpRequest(apiEvent('GET', '/prompts/x'));
    expect(request.headers[name]).toBeUndefined();
    expect(request.query[name]).toBeUndefined();
  });
});

describe('ETags', () => {
  test('strong, quoted, and a function of the body alone', () => {
    expect(strongEtag('{"a":1}')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(strongEtag('{"a":1}')).toBe(strongEtag('{"a":1}'));
    expect(strongEtag('{"a":1}')).not.toBe(strongEtag('{"a":2}'));
  });

  test('If-None-Match compares weakly and understands lists and *', () => {
    expect(ifNoneMatchMatches('"x"', '"x"')).toBe(true);
    expect(ifNoneMatchMatches('W/"x"', '"x"')).toBe(true);
    expect(ifNoneMatchMatches('"y", "x"', '"x"')).toBe(true);
    expect(ifNoneMatchMatches('*', '"x"')).toBe(true);
    expect(ifNoneMatchMatches('"y"', '"x"')).toBe(false);
    expect(ifNoneMatchMatches(undefined, '"x"')).toBe(false);
  });
});
