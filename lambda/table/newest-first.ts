import type { Table } from './table';
import { prefixes } from './schema';

/**
 * A page of an account's items between two sort keys, newest first (highest key first), as the audit log, a
 * label's history and the change requests are read. Unfiltered, one Query of a page and one more item (which
 * says whether there is a next page). With a filter the store applies as it reads, up to FILTERED_SCAN store
 * pages of 200 are looked through, so the answer stays within its time: when they hold fewer matches than a page,
 * the page still says where to go on.
 */
export interface NewestFirstQuery {
  readonly accountId: string;
  /** The lowest sort key of the range (a prefix). */
  readonly lower: string;
  /** The highest sort key of the range: `${prefix}~`, or belowKey(the cursor's key). */
  readonly upper: string;
  readonly limit: number;
  /** A FilterExpression with its own placeholders (update-expression.ts), never `:pk`, `:lower` or `:upper`. */
  readonly filter?: {
    readonly FilterExpression: string;
    readonly ExpressionAttributeNames: Record<string, string>;
    readonly ExpressionAttributeValues?: Record<string, unknown>;
  };
}

/** Store pages a filtered page looks through at most, 200 items each. */
const FILTERED_SCAN = { pageSize: 200, pages: 10 } as const;

/** The page's items and, when there is more, the sort key to go on below (the next page's cursor names it). */
export async function newestFirstPage<T extends { sk: string }>(
  table: Table,
  callName: string,
  query: NewestFirstQuery,
): Promise<{ items: T[]; nextKey?: string }> {
  const { filter, limit } = query;
  const matches: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  let lastSeen: string | undefined;
  for (let page = 0; page < (filter ? FILTERED_SCAN.pages : 1); page++) {
    const result = await table.queryPage<T>(callName, {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lower AND :upper',
      ExpressionAttributeValues: {
        ':pk': prefixes.accountPartition(query.accountId),
        ':lower': query.lower,
        ':upper': query.upper,
        ...filter?.ExpressionAttributeValues,
      },
      ...(filter ? { FilterExpression: filter.FilterExpression, ExpressionAttributeNames: filter.ExpressionAttributeNames } : {}),
      ScanIndexForward: false,
      ConsistentRead: true,
      // Unfiltered, one more than a page says whether there is a next one.
      Limit: filter ? FILTERED_SCAN.pageSize : limit + 1,
      ...(startKey ? { ExclusiveStartKey: startKey } : {}),
    });
    matches.push(...result.items);
    startKey = result.lastKey;
    lastSeen = typeof startKey?.sk === 'string' ? startKey.sk : lastSeen;
    if (matches.length > limit || !startKey) break;
  }
  const items = matches.slice(0, limit);
  const nextKey = matches.length > limit ? items.at(-1)?.sk : startKey ? (lastSeen ?? items.at(-1)?.sk) : undefined;
  return { items, ...(nextKey ? { nextKey } : {}) };
}

/** BETWEEN is inclusive: the largest key below `sortKey` (its last character one less, then anything). */
export const belowKey = (sortKey: string): string => `${sortKey.slice(0, -1)}${String.fromCharCode(sortKey.charCodeAt(sortKey.length - 1) - 1)}\uffff`;
