import { type PlaygroundServer, PlaygroundConfigError, startPlaygroundServer } from '../../local/playground-server';

const API_URL = 'http://127.0.0.1:4555';

let server: PlaygroundServer;

beforeAll(async () => {
  server = await startPlaygroundServer({ host: '127.0.0.1', port: 0, apiUrl: `${API_URL}/` });
});

afterAll(async () => {
  await server.close();
});

test('serves the page at / with a policy that lets it connect to the API origin and nowhere else', async () => {
  const response = await fetch(`${server.url}/`);

  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(await response.text()).toContain('<script type="module" src="/app.js"></script>');
  const policy = response.headers.get('content-security-policy') ?? '';
  expect(policy.split('; ')).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'self'", `connect-src ${API_URL}`, "frame-ancestors 'none'"]));
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
});

test('tells the page the API base URL in /config.js, without a trailing slash', async () => {
  const response = await fetch(`${server.url}/config.js`);

  expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect(await response.text()).toBe(`export const apiUrl = "${API_URL}";\n`);
});

test.each(['/app.js', '/style.css'])('serves %s', async (path) => {
  const response = await fetch(`${server.url}${path}`);

  expect(response.status).toBe(200);
  expect((await response.text()).length).toBeGreaterThan(0);
});

test.each(['/package.json', '/playground/app.js', '/%2e%2e/package.json', '/app.js/'])(
  'answers 404 for %s: only the page, its script, its style and its config are served',
  async (path) => {
    const response = await fetch(`${server.url}${path}`);

    expect(response.status).toBe(404);
  },
);

test('answers 405 to methods other than GET and HEAD', async () => {
  const response = await fetch(`${server.url}/`, { method: 'POST', body: 'x' });

  expect(response.status).toBe(405);
  expect(response.headers.get('allow')).toBe('GET, HEAD');
});

test.each(['not a url', 'javascript:alert(1)', 'file:///etc/passwd'])('refuses %s as the API URL', async (apiUrl) => {
  await expect(startPlaygroundServer({ host: '127.0.0.1', port: 0, apiUrl })).rejects.toThrow(PlaygroundConfigError);
});

test('says which setting to change when the port is taken', async () => {
  const port = Number(new URL(server.url).port);

  await expect(startPlaygroundServer({ host: '127.0.0.1', port, apiUrl: API_URL })).rejects.toThrow(/PLAYGROUND_PORT/);
});
