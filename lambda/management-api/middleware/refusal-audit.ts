import { recordedUrl, urlsRecordedIn } from '../../domain/webhook-rules';
import { ApiError } from '../../http/api-error';
import type { ManagementMiddleware, ManagementMiddyRequest } from '../management-context';
import { nameTable } from '../name-table';
import type { ManagementRoute } from '../route';
import { withinBudget } from './answer-budget';

const isBodyObject = (json: unknown): json is object => typeof json === 'object' && json !== null && !Array.isArray(json);

/** A field of the body as sent, by own name only. */
const fieldOf = (json: unknown, name: string): unknown => (isBodyObject(json) && Object.hasOwn(json, name) ? Reflect.get(json, name) : undefined);

/**
 * The body as sent, for the record: each field the route declares a URL (`urlFields`) cut to its origin, as the
 * operations record one (recordedUrl), and everything else as it came. Copied by spreading, which keeps every
 * name the sender used (`__proto__` too) as data.
 */
function recordedBody(route: ManagementRoute, json: unknown): unknown {
  const urlFields = (route.urlFields ?? []).filter((name) => isBodyObject(json) && Object.hasOwn(json, name));
  if (!isBodyObject(json) || urlFields.length === 0) return json;
  const copy: Record<string, unknown> = { ...json };
  for (const name of urlFields) copy[name] = recordedUrl(fieldOf(json, name));
  return copy;
}

/**
 * What a refused attempt was aimed at, as the audit log names it: every path parameter as sent (valid
 * or not), for a route that creates something the body's name for it (a URL by its origin alone), and the
 * account itself when nothing in it is named (as the operations name their targets).
 */
function targetOf(route: ManagementRoute, accountId: string, path: Readonly<Record<string, string | undefined>>, json: unknown): Record<string, string> {
  const target = nameTable();
  for (const [name, value] of Object.entries(path)) if (name !== 'accountId' && value !== undefined) target[name] = urlsRecordedIn(value);
  for (const name of route.bodyTarget ?? []) {
    const value = fieldOf(json, name);
    if (typeof value === 'string') target[name] = route.urlFields?.includes(name) ? recordedUrl(value) : value;
  }
  return Object.keys(target).length > 0 ? target : { accountId };
}

/**
 * Records a refused attempt to change something: a 4xx the chain or the handler answered, on a route with
 * an `action`, from a member of the path's account. Runs before the operations' errors are mapped
 * (operation-errors.ts), so what the operations refuse (a conflict, a stale draft) is left to them: they
 * record it as failed.
 */
const refuse = async (request: ManagementMiddyRequest): Promise<void> => {
  const { error, event, context } = request;
  if (!(error instanceof ApiError) || error.statusCode >= 500) return;
  const { route, accountId, ops, sent } = context;
  if (!route?.action || accountId === undefined || !ops) return;
  const json = sent?.json;
  const attempt = {
    accountId,
    action: route.action,
    target: targetOf(route, accountId, event.pathParameters ?? {}, json),
    ...(json === undefined ? {} : { requested: recordedBody(route, json) }),
  };
  // A refusal the store cannot record is still answered as one; one still being recorded when the answer is due, 503.
  const recorded = ops.refuse(attempt, { code: error.code, message: urlsRecordedIn(error.message) }).catch(() => undefined);
  await withinBudget(context, recorded).catch((late: unknown) => {
    if (late instanceof Error) request.error = late;
  });
};

export const refusalAudit = (): ManagementMiddleware => ({ onError: refuse });
