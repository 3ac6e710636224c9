import type { SmokeTarget } from './checks';

export const SMOKE_USAGE = `Usage: npm run smoke -- --url <ApiUrl> --key <key> [--label production] [--origin https://your.site]

Checks a deployed stack (or npm start's) end to end from this machine: the read routes, a label, MCP,
the rate-limit headers, CORS, a 401 for a bad key and a 404 for an unknown prompt. One line per check;
exit 0 when all hold, 1 when any fails, 2 on bad options.

  --url     the read API's base URL: cdk deploy's ApiUrl output, or http://127.0.0.1:3000 under npm start
  --key     an API key of an account with published prompts (or set PROMPTS_API_KEY instead, to keep it
            out of the shell's history); it uses about ten requests of that key's monthly quota
  --label   a label some prompt of the account carries (default: production)
  --origin  the web origin the CORS checks send (default: https://example.com)
`;

export type ParsedOptions = { readonly help: true } | { readonly help: false; readonly target: SmokeTarget } | { readonly error: string };

const VALUE_OPTIONS = ['--url', '--key', '--label', '--origin'] as const;
type ValueOption = (typeof VALUE_OPTIONS)[number];
const isValueOption = (name: string): name is ValueOption => (VALUE_OPTIONS as readonly string[]).includes(name);

export function parseSmokeOptions(args: readonly string[], env: Readonly<Record<string, string | undefined>>): ParsedOptions {
  if (args.includes('--help') || args.includes('-h')) return { help: true };
  const values = new Map<ValueOption, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (!isValueOption(name)) return { error: `unknown option ${name} (options: ${VALUE_OPTIONS.join(', ')}, --help)` };
    const value = inline ?? args[++i];
    // `--key --label x` is a forgotten key, not a key named --label.
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('--'))) return { error: `${name} needs a value` };
    values.set(name, value);
  }
  const apiUrl = values.get('--url');
  if (apiUrl === undefined) return { error: '--url is required: the ApiUrl output of cdk deploy' };
  if (!isHttpUrl(apiUrl)) return { error: `--url must be an http(s) URL, such as cdk deploy's ApiUrl output; got "${apiUrl}"` };
  const apiKey = values.get('--key') ?? env.PROMPTS_API_KEY;
  if (apiKey === undefined || apiKey === '') return { error: '--key is required (or PROMPTS_API_KEY): an API key of an account with published prompts' };
  const origin = values.get('--origin') ?? 'https://example.com';
  if (!isHttpUrl(origin) || new URL(origin).origin !== origin) return { error: `--origin must be a web origin such as https://your.site; got "${origin}"` };
  return { help: false, target: { apiUrl, apiKey, label: values.get('--label') ?? 'production', origin } };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
