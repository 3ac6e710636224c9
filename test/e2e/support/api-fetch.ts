import { expectResponseMatchesOpenApi } from '../../support/openapi';

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * fetch, for the API: every answer is held to openapi.yaml before the test sees it. The body is read
 * for the check, so the caller gets an equal Response whose body it can still read.
 */
export async function fetchApi(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  const text = await response.text();
  expectResponseMatchesOpenApi({
    method: init.method ?? 'GET',
    path: new URL(url).pathname,
    status: response.status,
    headers: response.headers,
    body: text,
  });
  return new Response(NULL_BODY_STATUSES.has(response.status) ? null : text, {
    status: response.status,
    headers: response.headers,
  });
}
