/**
 * The management API's functions and the REST API methods each serves: the deployed stack
 * (lib/management-api.ts), the local gateway (local/management-gateway.ts) and the tests build theirs
 * from this table. Every method has the Cognito authorizer. Paths start at `/api`, as CloudFront
 * forwards them.
 */
export type ManagementMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ManagementFunction {
  readonly id: string;
  /** The Lambda entry file, exporting `handler`. */
  readonly entry: string;
  readonly description: string;
  readonly routes: readonly { readonly method: ManagementMethod; readonly path: string }[];
}

const ACCOUNT = '/api/accounts/{accountId}';
const PROMPT = `${ACCOUNT}/prompts/{promptId}`;
const VERSION = `${PROMPT}/versions/{version}`;
const KEY = `${ACCOUNT}/keys/{keyId}`;

export const MANAGEMENT_FUNCTIONS: readonly ManagementFunction[] = [
  {
    id: 'ManageAccounts',
    entry: 'lambda/management-api/accounts-function.ts',
    description: 'Management API: the signed-in user and their accounts',
    routes: [
      { method: 'GET', path: '/api/me' },
      { method: 'GET', path: ACCOUNT },
      { method: 'PATCH', path: ACCOUNT },
    ],
  },
  {
    id: 'ManagePrompts',
    entry: 'lambda/management-api/prompts-function.ts',
    description: 'Management API: prompts, drafts, publishing and labels',
    routes: [
      { method: 'GET', path: `${ACCOUNT}/prompts` },
      { method: 'POST', path: `${ACCOUNT}/prompts` },
      { method: 'GET', path: PROMPT },
      { method: 'PATCH', path: PROMPT },
      { method: 'GET', path: VERSION },
      { method: 'PUT', path: VERSION },
      { method: 'DELETE', path: VERSION },
      { method: 'POST', path: `${VERSION}/publish` },
      { method: 'PUT', path: `${PROMPT}/labels/{label}` },
      { method: 'DELETE', path: `${PROMPT}/labels/{label}` },
      { method: 'POST', path: `${PROMPT}/delete` },
      { method: 'POST', path: `${PROMPT}/restore` },
    ],
  },
  {
    id: 'ManageKeys',
    entry: 'lambda/management-api/keys-function.ts',
    description: 'Management API: API keys',
    routes: [
      { method: 'GET', path: `${ACCOUNT}/keys` },
      { method: 'POST', path: `${ACCOUNT}/keys` },
      { method: 'PATCH', path: KEY },
      { method: 'POST', path: `${KEY}/rotate` },
      { method: 'POST', path: `${KEY}/revoke` },
    ],
  },
  {
    id: 'ManageMembers',
    entry: 'lambda/management-api/members-function.ts',
    description: 'Management API: members and roles',
    routes: [
      { method: 'GET', path: `${ACCOUNT}/members` },
      { method: 'POST', path: `${ACCOUNT}/members` },
      { method: 'PATCH', path: `${ACCOUNT}/members/{userId}` },
      { method: 'DELETE', path: `${ACCOUNT}/members/{userId}` },
    ],
  },
  {
    id: 'ManageActivity',
    entry: 'lambda/management-api/activity-function.ts',
    description: 'Management API: usage by day and the audit log',
    routes: [
      { method: 'GET', path: `${ACCOUNT}/usage` },
      { method: 'GET', path: `${ACCOUNT}/audit` },
    ],
  },
];
