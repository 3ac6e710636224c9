import { curlSnippet, mcpSnippet, pythonSnippet, READ_API_PLACEHOLDER, typeScriptSnippet } from '../../../dashboard/src/features/keys/snippets';

/** docs/management-api.md, "The dashboard" (Keys): samples use the read API's real URL and ?label=production, in four forms. */

const URL = 'http://127.0.0.1:3000';

test('curl reads the prompt at the production label, with the key', () => {
  expect(curlSnippet(URL, 'prs_key', 'welcome')).toBe(`curl -H 'Authorization: Bearer prs_key' 'http://127.0.0.1:3000/prompts/welcome?label=production'`);
});

test('the TypeScript and Python clients read the label, with the key from the environment', () => {
  expect(typeScriptSnippet(URL, 'welcome')).toContain(`prompts.get("welcome", { label: 'production' })`);
  expect(typeScriptSnippet(URL, 'welcome')).toContain('process.env.PROMPTS_API_KEY');
  expect(pythonSnippet(URL, 'welcome')).toContain('prompts.get("welcome", label="production")');
  expect(pythonSnippet(URL, 'welcome')).toContain(`PromptClient("${URL}", os.environ["PROMPTS_API_KEY"])`);
});

test("an MCP client's configuration names the endpoint at the label, with the key", () => {
  expect(JSON.parse(mcpSnippet(URL, 'prs_key'))).toEqual({
    mcpServers: { prompts: { type: 'http', url: 'http://127.0.0.1:3000/mcp?label=production', headers: { Authorization: 'Bearer prs_key' } } },
  });
});

test('without a known URL the samples say where it goes', () => {
  expect(curlSnippet(undefined, 'k', undefined)).toContain(`${READ_API_PLACEHOLDER}/prompts?label=production`);
});
