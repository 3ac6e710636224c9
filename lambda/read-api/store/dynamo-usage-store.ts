import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { previousMonth } from '../../domain/quota-period';
import { callStoreUnlessRefused, getItem } from '../../table/calls';
import type { StoreClients } from '../../table/client';
import { StoreUnavailableError } from '../../table/errors';
import type { ApiKeyItem } from '../../table/item-types';
import { holdAttribute, keys, servedAttribute, usageAttribute } from '../../table/schema';
import { type BuiltUpdate, type ExpressionNames, openName, openValue, prepareUpdate } from '../../table/update-expression';
import type { Admission, AdmissionRequest, AdmittedKey, Deadline, KeyCheckRequest, ServedCount, ServedOutcome, UsageSlot, UsageStore } from './api-store';

/**
 * What each count names: this month's counter (`used#<month>`), today's counter in the day map, the
 * request's time and month. The counting updates below are built once, here, with these left open; each
 * request gives them (prepareUpdate), so building costs a request nothing.
 */
const USED = openName('used');
const TODAY = `days.${openName('day')}`;
const NOW = openValue('now');
const MONTH = openValue('month');

/**
 * Active, not expired and under its monthly limit: the whole admission rule, decided by the store
 * atomically with the count. A missing item fails `status = active` too, so an unknown key never
 * creates one. `NOT expiresAt <= now` holds for a key without an expiry (a comparison with a missing
 * attribute is false). Written without parentheses (NOT binds tighter than AND, AND than OR): dynalite,
 * the local store, parses parenthesised conditions at twice the cost, which would dominate local runs.
 * `and` is added to both branches, so it binds to the whole rule.
 */
function admissionCondition(e: ExpressionNames, and: string): string {
  const [used, limit, status, expiresAt] = [e.name(USED), e.name('limit'), e.name('status'), e.name('expiresAt')];
  const [active, now] = [e.value('active'), e.value(NOW)];
  return (
    `${used} < ${limit} AND ${status} = ${active} AND NOT ${expiresAt} <= ${now} AND ${and} OR ` +
    `attribute_not_exists(${used}) AND ${status} = ${active} AND ${e.value(0)} < ${limit} AND NOT ${expiresAt} <= ${now} AND ${and}`
  );
}

/**
 * The served counters a write changes, added to an update built once (which has no ADD clause of its own), with
 * placeholders of their own: ADD starts a missing counter from zero, and the update's condition covers them too, with
 * their own terms added (servedUpdate: the revision, the holds), so a refused request counts no side.
 */
function withServed(update: BuiltUpdate, served: ServedCount | undefined): BuiltUpdate {
  if (!served || served.changes.length === 0) return update;
  const { UpdateExpression, ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues } = servedUpdate(served);
  const condition = update.ConditionExpression;
  return {
    ...update,
    UpdateExpression: `${update.UpdateExpression} ${UpdateExpression}`,
    // Parentheses only around a condition of several branches: dynalite parses them at a cost (admissionCondition).
    ConditionExpression:
      condition === undefined ? ConditionExpression : `${condition.includes(' OR ') ? `(${condition})` : condition} AND ${ConditionExpression}`,
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...ExpressionAttributeNames },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...ExpressionAttributeValues },
  };
}

/** `ADD` of the served counters on their terms, on placeholders no update built once uses. */
function servedUpdate(served: ServedCount): BuiltUpdate & { ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> } {
  const names: Record<string, string> = { '#servedRevision': 'promptsRevision' };
  const values: Record<string, unknown> = { ':servedRevision': served.revision };
  const adds = served.changes.map(({ rolloutId, side, by }, index) => {
    names[`#served${index}`] = servedAttribute(rolloutId, side);
    values[`:served${index}`] = by;
    return `#served${index} :served${index}`;
  });
  // A key that never had a revision carries none (0); a revision is never taken off.
  const terms = [served.revision === 0 ? 'NOT #servedRevision > :servedRevision' : '#servedRevision = :servedRevision'];
  if (served.heldAt !== undefined) {
    values[':heldAt'] = served.heldAt;
    // A missing hold compares as false: NOT makes it no obstacle, as `NOT expiresAt <= now` does for an expiry.
    [...new Set(served.changes.map(({ rolloutId }) => rolloutId))].forEach((rolloutId, index) => {
      names[`#hold${index}`] = holdAttribute(rolloutId);
      terms.push(`NOT #hold${index} > :heldAt`);
    });
  }
  return {
    UpdateExpression: `ADD ${adds.join(', ')}`,
    ConditionExpression: terms.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** The served counters alone, on a key that still exists: a count never makes an item. */
function servedOnExistingKey(served: ServedCount): BuiltUpdate {
  const update = servedUpdate(served);
  return {
    ...update,
    ConditionExpression: `attribute_exists(#key) AND ${update.ConditionExpression}`,
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#key': 'pk' },
  };
}

/** Whether the served counts' terms hold on the key as it stands (the revision they were decided under, no hold). */
function termsHold(item: Partial<ApiKeyItem>, served: ServedCount): boolean {
  if (Number(item.promptsRevision ?? 0) !== served.revision) return false;
  return heldUntil(item, served) === undefined;
}

/** Until when an end holds one of the counters at the count's `heldAt` (the latest such hold), if one does. */
function heldUntil(item: Partial<ApiKeyItem>, { changes, heldAt }: ServedCount): number | undefined {
  if (heldAt === undefined) return undefined;
  let until: number | undefined;
  for (const { rolloutId } of changes) {
    const hold = item[holdAttribute(rolloutId)];
    if (typeof hold === 'number' && hold > heldAt) until = Math.max(until ?? hold, hold);
  }
  return until;
}

/** What a refused change of served counters found: the key gone, or its revision now and the hold in the way. */
function servedRefusal(item: Partial<ApiKeyItem> | undefined, served: ServedCount): ServedOutcome {
  if (!item) return { counted: false, gone: true };
  const until = heldUntil(item, served);
  return { counted: false, gone: false, revision: Number(item.promptsRevision ?? 0), ...(until === undefined ? {} : { heldUntil: until }) };
}

/** A counter raised by one; one that may be missing starts from zero. */
const plusOne = (path: string) => (e: ExpressionNames) => `${e.name(path)} + ${e.value(1)}`;
const fromZeroPlusOne = (path: string) => (e: ExpressionNames) => `if_not_exists(${e.name(path)}, ${e.value(0)}) + ${e.value(1)}`;
const sameMonth = (e: ExpressionNames) => `${e.name('daysMonth')} = ${e.value(MONTH)}`;

/** The count almost every request takes (SAME_MONTH below): one branch, the month's counter known to exist. */
const COUNT_IN_MONTH = prepareUpdate({
  set: { [USED]: plusOne(USED), [TODAY]: fromZeroPlusOne(TODAY) },
  condition: (e) =>
    `${e.name(USED)} < ${e.name('limit')} AND ${e.name('status')} = ${e.value('active')} AND NOT ${e.name('expiresAt')} <= ${e.value(NOW)} AND ${sameMonth(e)}`,
});

/** This month's day counters without the month's counter (SAME_MONTH_FIRST_COUNT below). */
const COUNT_IN_MONTH_FIRST = prepareUpdate({
  set: { [USED]: fromZeroPlusOne(USED), [TODAY]: fromZeroPlusOne(TODAY) },
  condition: (e) => admissionCondition(e, sameMonth(e)),
});

/**
 * The month's first count: the day counters start afresh (`freshDays`, today at one), last month's are kept
 * as `prevDays` when they were last month's and dropped otherwise, on the condition that the counters are
 * still as they were read (`storedMonth`, or none).
 */
function startMonth(keep: 'last-month' | 'none', stored: 'a-month' | 'none') {
  const carried = keep === 'last-month' ? { prevDays: openValue('prevDays'), prevDaysMonth: openValue('prevMonth') } : {};
  return prepareUpdate({
    set: { [USED]: fromZeroPlusOne(USED), days: openValue('freshDays'), daysMonth: MONTH, ...carried },
    remove: keep === 'last-month' ? [] : ['prevDays', 'prevDaysMonth'],
    condition: (e) =>
      admissionCondition(
        e,
        stored === 'none' ? `attribute_not_exists(${e.name('daysMonth')})` : `${e.name('daysMonth')} = ${e.value(openValue('storedMonth'))}`,
      ),
  });
}
const START_MONTH = {
  keepingLastMonth: startMonth('last-month', 'a-month'),
  droppingAnother: startMonth('none', 'a-month'),
  first: startMonth('none', 'none'),
};

/** A unit given back: both counters down by one, never below zero, and only in the month it was taken. */
const RETURN_UNIT = prepareUpdate({
  set: { [USED]: (e: ExpressionNames) => `${e.name(USED)} - ${e.value(1)}`, [TODAY]: (e: ExpressionNames) => `${e.name(TODAY)} - ${e.value(1)}` },
  condition: (e) => `${e.name(USED)} > ${e.value(0)} AND ${sameMonth(e)} AND ${e.name(TODAY)} > ${e.value(0)}`,
});

/**
 * The one form of the count almost every request takes: the day counters already count this month, and
 * so the month's counter exists (whatever sets `daysMonth` sets it too), which keeps the condition to
 * one branch.
 */
const SAME_MONTH = 'same-month' as const;
/** This month's day counters without the month's counter: not written by this code, but counted all the same. */
const SAME_MONTH_FIRST_COUNT = 'same-month-first-count' as const;

/**
 * A count that failed its condition is tried again only when the item shows it was the month's day
 * counters, not the key or its limit, that refused it (the first request of a month, or two of them racing).
 */
const COUNT_ATTEMPTS = 3;

type CountForm = typeof SAME_MONTH | typeof SAME_MONTH_FIRST_COUNT | { readonly startMonth: ApiKeyItem };

type CountResult = { readonly admission: Admission } | { readonly refused: ApiKeyItem | undefined };

/**
 * The read API's key checks and counts: each a conditional write of the key's item (docs/data-model.md), the
 * admission of a warm request its one store operation.
 */
export class DynamoUsageStore implements UsageStore {
  constructor(
    private readonly clients: Pick<StoreClients, 'reads' | 'writes'>,
    private readonly tableName: string,
  ) {}

  /**
   * One conditional UpdateItem checks the key and counts the request in its month and day. The day
   * counters hold this month's days only (docs/data-model.md), so the first request of a month takes
   * a second write that starts them afresh; every other request is the one write.
   */
  async admit(request: AdmissionRequest, deadline: Deadline): Promise<Admission> {
    const usedName = usageAttribute(request.month);
    let form: CountForm = SAME_MONTH;
    let served = request.served;
    // One attempt more when the sides may have to be left out.
    const attempts = COUNT_ATTEMPTS + (served ? 1 : 0);
    for (let attempt = 1; ; attempt += 1) {
      const result = await this.count({ ...request, served }, form, deadline);
      if ('admission' in result) return result.admission;
      const key = toAdmittedKey(result.refused, usedName, request.at);
      if (!key) return { admitted: false, reason: 'invalid-key' };
      if (key.used >= key.limit) return { admitted: false, reason: 'limit-reached', key };
      // The sides were decided under a revision the key no longer carries, or an end holds their counters: the unit
      // is taken without them, and the request counts what it answers once that is known (api-handler.ts).
      if (served && result.refused && !termsHold(result.refused, served)) served = undefined;
      // Otherwise admissible: the day counters were of another month, or changed month while this request read them.
      if (attempt >= attempts || !result.refused) {
        throw new StoreUnavailableError('admit: the day counters kept changing while counting');
      }
      if (result.refused.daysMonth !== request.month) form = { startMonth: result.refused };
      else form = result.refused[usedName as `used#${string}`] === undefined ? SAME_MONTH_FIRST_COUNT : SAME_MONTH;
    }
  }

  private count({ keyHash, month, day, at, served }: AdmissionRequest, form: CountForm, deadline: Deadline): Promise<CountResult> {
    const usedName = usageAttribute(month);
    let update: BuiltUpdate;
    if (form === SAME_MONTH) update = COUNT_IN_MONTH({ used: usedName, day, now: at.getTime(), month });
    else if (form === SAME_MONTH_FIRST_COUNT) update = COUNT_IN_MONTH_FIRST({ used: usedName, day, now: at.getTime(), month });
    else {
      const stored = form.startMonth;
      const start =
        stored.daysMonth !== undefined && stored.daysMonth === previousMonth(month) && stored.days
          ? START_MONTH.keepingLastMonth
          : stored.daysMonth === undefined
            ? START_MONTH.first
            : START_MONTH.droppingAnother;
      update = start({
        used: usedName,
        now: at.getTime(),
        month,
        freshDays: { [day]: 1 },
        prevDays: stored.days,
        prevMonth: stored.daysMonth,
        storedMonth: stored.daysMonth,
      });
    }
    return callStoreUnlessRefused(
      'admit',
      async (): Promise<CountResult> => {
        const result = await this.clients.writes.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.apiKey(keyHash),
            ...withServed(update, served),
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
          { abortSignal: deadline },
        );
        const key = toAdmittedKey(result.Attributes as ApiKeyItem | undefined, usedName, at);
        return { admission: key ? { admitted: true, key, servedCounted: served !== undefined } : { admitted: false, reason: 'invalid-key' } };
      },
      async (refused): Promise<CountResult> => ({
        // DynamoDB (and the embedded store, patches/) return the item as it stood; a store without
        // ReturnValuesOnConditionCheckFailure does not, and the item is read back.
        refused: refused.Item ? (unmarshall(refused.Item) as ApiKeyItem) : await this.getItem<ApiKeyItem>('admit', keys.apiKey(keyHash), deadline),
      }),
    );
  }

  async checkKey({ keyHash, month, at }: KeyCheckRequest, deadline: Deadline): Promise<AdmittedKey | undefined> {
    const item = await this.getItem<ApiKeyItem>('checkKey', keys.apiKey(keyHash), deadline);
    return toAdmittedKey(item, usageAttribute(month), at);
  }

  async returnUsageUnit(keyHash: string, slot: UsageSlot, deadline: Deadline, served?: ServedCount): Promise<void> {
    const givenBack = served && served.changes.length > 0 ? { ...served, changes: served.changes.map((change) => ({ ...change, by: -change.by })) } : undefined;
    await callStoreUnlessRefused(
      'returnUsageUnit',
      () =>
        this.clients.writes.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.apiKey(keyHash),
            ...withServed(RETURN_UNIT({ used: usageAttribute(slot.month), day: slot.day, month: slot.month }), givenBack),
          }),
          { abortSignal: deadline },
        ),
      // Nothing to give back (the count is already zero): never go below it. Or the sides' terms no longer hold (the
      // rollout ended since, its counts frozen with them): the unit alone.
      () => (givenBack ? this.returnUsageUnit(keyHash, slot, deadline) : undefined),
    );
  }

  async countServed(keyHash: string, served: ServedCount, deadline: Deadline): Promise<ServedOutcome> {
    if (served.changes.length === 0) return { counted: true };
    return callStoreUnlessRefused(
      'countServed',
      async (): Promise<ServedOutcome> => {
        await this.clients.writes.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.apiKey(keyHash),
            ...servedOnExistingKey(served),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
          { abortSignal: deadline },
        );
        return { counted: true };
      },
      async (refused) =>
        servedRefusal(
          refused.Item ? (unmarshall(refused.Item) as ApiKeyItem) : await this.getItem<ApiKeyItem>('countServed', keys.apiKey(keyHash), deadline),
          served,
        ),
    );
  }

  private getItem<T>(callName: string, key: Record<string, string>, deadline: Deadline, consistent = true): Promise<T | undefined> {
    return getItem<T>(this.clients.reads, this.tableName, callName, key, { abortSignal: deadline, consistent });
  }
}

/** An active, unexpired key with a limit; anything else admits nothing and reads as an invalid key. */
function toAdmittedKey(item: ApiKeyItem | undefined, usedName: string, at: Date): AdmittedKey | undefined {
  if (item?.status !== 'active' || typeof item.limit !== 'number') return undefined;
  if (typeof item.expiresAt === 'number' && item.expiresAt <= at.getTime()) return undefined;
  return {
    keyId: item.keyId,
    accountId: item.accountId,
    limit: item.limit,
    used: Number(item[usedName as `used#${string}`] ?? 0),
    promptsRevision: item.promptsRevision ?? 0,
    ...(item.scope ? { scope: item.scope } : {}),
  };
}
