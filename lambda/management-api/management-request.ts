import type * as z from 'zod';
import type { Role } from '../domain/roles';
import type { AccountOperations } from '../operations/account-operations';
import type { Member } from '../table/members';
import type { AdminTable } from '../table/admin-table';
import type { Telemetry } from '../telemetry';
import type { UserDirectory } from '../users/user-directory';

/** The signed-in person, as the gateway's Cognito authorizer (or the local gateway) vouches for them. */
export interface Caller {
  readonly userId: string;
  readonly email: string;
}

export interface ManagementDependencies {
  /** The table with the functions' clients; each request binds it to its own deadline. */
  readonly table: AdminTable;
  readonly directory: UserDirectory;
  readonly telemetry: Telemetry;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ManagementRequest {
  readonly caller: Caller;
  /** Path parameters, validated: `accountId`, `promptId`, `version`, `label`, `keyId`, `userId`. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as the route's schema parsed it. */
  readonly body: unknown;
  /** For routes under an account: the caller's membership, read on this request. */
  readonly member: Member | undefined;
  readonly table: AdminTable;
  readonly ops: AccountOperations;
  readonly directory: UserDirectory;
  readonly now: Date;
}

export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RouteSpec {
  readonly method: HttpMethod;
  /** The REST API resource, e.g. `/api/accounts/{accountId}/prompts/{promptId}`. */
  readonly path: string;
  /** Any signed-in person, or members of the path's account with at least this role. */
  readonly access: 'signed-in' | Role;
  /** Set on routes that change something: the audit log's name for the attempt, refused ones included. */
  readonly action?: string;
  readonly body?: z.ZodType;
  /** Body fields that name what a refused attempt was aimed at, for routes whose path does not (what they create). */
  readonly bodyTarget?: readonly string[];
  handle(request: ManagementRequest): Promise<Reply>;
}
