/** The code shown with a new key: ready to paste, with the key in it this once. */

export const READ_API_PLACEHOLDER = 'https://YOUR-API-ID.execute-api.REGION.amazonaws.com/prod';

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function curlSnippet(apiUrl: string | undefined, apiKey: string, promptId: string | undefined): string {
  const base = (apiUrl ?? READ_API_PLACEHOLDER).replace(/\/+$/, '');
  const path = promptId ? `/prompts/${encodeURIComponent(promptId)}` : '/prompts';
  return `curl -H ${shellQuote(`Authorization: Bearer ${apiKey}`)} ${shellQuote(`${base}${path}`)}`;
}

export function clientSnippet(apiUrl: string | undefined, promptId: string | undefined): string {
  const base = (apiUrl ?? READ_API_PLACEHOLDER).replace(/\/+$/, '');
  return [
    "import { createPromptClient } from '@prompt-retrieval/client';",
    '',
    '// Keep the key out of your code: PROMPTS_API_KEY=<the key above>',
    `const prompts = createPromptClient({ baseUrl: ${JSON.stringify(base)}, apiKey: process.env.PROMPTS_API_KEY! });`,
    `const prompt = await prompts.get(${JSON.stringify(promptId ?? 'your-prompt-id')});`,
    'const { systemMessage, userMessage } = prompt.compile({ /* your variables */ });',
  ].join('\n');
}
