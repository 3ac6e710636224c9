/**
 * The code shown with a new key: ready to paste, against the read API's real URL (the deployment's, or
 * `npm start`'s), reading what the `production` label points at, in curl, the TypeScript client, the Python client
 * and an MCP client's configuration. The key itself goes only where a person pastes it once (the curl line and
 * the MCP configuration); code reads it from the environment.
 */

export const READ_API_PLACEHOLDER = 'https://YOUR-API-ID.execute-api.REGION.amazonaws.com/prod';
export const SAMPLE_LABEL = 'production';

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const baseOf = (apiUrl: string | undefined) => (apiUrl ?? READ_API_PLACEHOLDER).replace(/\/+$/, '');
const idOf = (promptId: string | undefined) => promptId ?? 'your-prompt-id';

export function curlSnippet(apiUrl: string | undefined, apiKey: string, promptId: string | undefined): string {
  const path = promptId ? `/prompts/${encodeURIComponent(promptId)}` : '/prompts';
  return `curl -H ${shellQuote(`Authorization: Bearer ${apiKey}`)} ${shellQuote(`${baseOf(apiUrl)}${path}?label=${SAMPLE_LABEL}`)}`;
}

export function typeScriptSnippet(apiUrl: string | undefined, promptId: string | undefined): string {
  return [
    "import { createPromptClient } from '@prompt-retrieval/client';",
    '',
    '// Keep the key out of your code: PROMPTS_API_KEY=<the key above>',
    `const prompts = createPromptClient({ baseUrl: ${JSON.stringify(baseOf(apiUrl))}, apiKey: process.env.PROMPTS_API_KEY! });`,
    `const prompt = await prompts.get(${JSON.stringify(idOf(promptId))}, { label: '${SAMPLE_LABEL}' });`,
    'const { systemMessage, userMessage } = prompt.compile({ /* your variables */ });',
  ].join('\n');
}

export function pythonSnippet(apiUrl: string | undefined, promptId: string | undefined): string {
  return [
    'import os',
    'from prompt_retrieval import PromptClient',
    '',
    '# Keep the key out of your code: PROMPTS_API_KEY=<the key above>',
    `prompts = PromptClient(${JSON.stringify(baseOf(apiUrl))}, os.environ["PROMPTS_API_KEY"])`,
    `prompt = prompts.get(${JSON.stringify(idOf(promptId))}, label="${SAMPLE_LABEL}")`,
    'messages = prompt.compile()  # your variables as keyword arguments: chat messages for any OpenAI-compatible SDK',
  ].join('\n');
}

/** A desktop MCP client's `mcpServers` entry: the read API's MCP endpoint, at the label, with the key. */
export function mcpSnippet(apiUrl: string | undefined, apiKey: string): string {
  const server = { type: 'http', url: `${baseOf(apiUrl)}/mcp?label=${SAMPLE_LABEL}`, headers: { Authorization: `Bearer ${apiKey}` } };
  return JSON.stringify({ mcpServers: { prompts: server } }, null, 2);
}
