import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api/client';
import type { AccountSettings, Me, Membership } from './api/types';
import type { SignInConfig } from './auth/pkce';
import type { Role } from './logic/roles';
import type { Route } from './logic/route';

/** What every page of an account works with: the API, who is signed in, the account and their role in it. */
export interface Workspace {
  readonly api: Api;
  readonly config: SignInConfig;
  readonly me: Me;
  readonly account: Membership;
  readonly settings: AccountSettings | undefined;
  /** The role the API last said this person has here. */
  readonly role: Role;
  navigate(route: Route): void;
  /** Reads the account (and so the role) again, after a change that may have moved it. */
  refreshAccount(): void;
  /** Says something in the page's live region, for changes that happen away from focus. */
  announce(message: string): void;
}

export const WorkspaceContext = createContext<Workspace | undefined>(undefined);

export function useWorkspace(): Workspace {
  const workspace = useContext(WorkspaceContext);
  if (!workspace) throw new Error('useWorkspace outside an account page');
  return workspace;
}
