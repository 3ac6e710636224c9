/**
 * The dashboard's pages, in the address bar's fragment (`#/accounts/acme/prompts/welcome`): any static
 * host serves the one index.html, and a reload or a shared link opens the same page.
 */
export type Section = 'prompts' | 'change-requests' | 'keys' | 'webhooks' | 'usage' | 'members' | 'audit' | 'settings';

export type Route =
  | { readonly page: 'home' }
  | { readonly page: 'prompts'; readonly accountId: string }
  | { readonly page: 'prompt'; readonly accountId: string; readonly promptId: string }
  | { readonly page: 'playground'; readonly accountId: string; readonly promptId: string }
  | { readonly page: 'version'; readonly accountId: string; readonly promptId: string; readonly version: string }
  | { readonly page: 'compare'; readonly accountId: string; readonly promptId: string; readonly from: string; readonly to: string }
  | { readonly page: 'change-request'; readonly accountId: string; readonly requestId: string }
  | { readonly page: 'change-requests' | 'keys' | 'webhooks' | 'usage' | 'members' | 'audit' | 'settings'; readonly accountId: string };

/** Each section's part of the address: the change requests keep the short `requests` that links already carry. */
const SEGMENTS: Readonly<Record<Section, string>> = {
  prompts: 'prompts',
  'change-requests': 'requests',
  keys: 'keys',
  webhooks: 'webhooks',
  usage: 'usage',
  members: 'members',
  audit: 'audit',
  settings: 'settings',
};

const SECTION_OF_SEGMENT: ReadonlyMap<string, Section> = new Map(Object.entries(SEGMENTS).map(([section, segment]) => [segment, section as Section]));

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '').split('?')[0] ?? '';
  const parts = path
    .split('/')
    .filter(Boolean)
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
  const [root, accountId, segment, promptId, sub, version, extra] = parts;
  if (root !== 'accounts' || !accountId) return { page: 'home' };
  if (segment === undefined) return { page: 'prompts', accountId };
  const section = SECTION_OF_SEGMENT.get(segment);
  if (section === undefined) return { page: 'home' };
  if (section === 'change-requests' && promptId !== undefined)
    return sub === undefined ? { page: 'change-request', accountId, requestId: promptId } : { page: 'home' };
  if (section !== 'prompts') return promptId === undefined ? { page: section, accountId } : { page: 'home' };
  if (promptId === undefined) return { page: 'prompts', accountId };
  if (sub === undefined) return { page: 'prompt', accountId, promptId };
  if (sub === 'playground' && version === undefined) return { page: 'playground', accountId, promptId };
  if (sub === 'versions' && version !== undefined && extra === undefined) return { page: 'version', accountId, promptId, version };
  if (sub === 'compare' && version !== undefined && extra !== undefined) return { page: 'compare', accountId, promptId, from: version, to: extra };
  return { page: 'prompt', accountId, promptId };
}

const part = encodeURIComponent;

export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'home':
      return '#/';
    case 'prompt':
      return `#/accounts/${part(route.accountId)}/prompts/${part(route.promptId)}`;
    case 'playground':
      return `#/accounts/${part(route.accountId)}/prompts/${part(route.promptId)}/playground`;
    case 'version':
      return `#/accounts/${part(route.accountId)}/prompts/${part(route.promptId)}/versions/${part(route.version)}`;
    case 'compare':
      return `#/accounts/${part(route.accountId)}/prompts/${part(route.promptId)}/compare/${part(route.from)}/${part(route.to)}`;
    case 'change-request':
      return `#/accounts/${part(route.accountId)}/${SEGMENTS['change-requests']}/${part(route.requestId)}`;
    default:
      return `#/accounts/${part(route.accountId)}/${SEGMENTS[route.page]}`;
  }
}

/** The section of the navigation a page belongs to. */
export function sectionOf(route: Route): Section | undefined {
  if (route.page === 'home') return undefined;
  if (route.page === 'prompt' || route.page === 'playground' || route.page === 'version' || route.page === 'compare') return 'prompts';
  if (route.page === 'change-request') return 'change-requests';
  return route.page;
}
