import { quotaPeriodAt } from '../../domain/quota-period';
import type { AccountItem, ModelTokensItem } from '../../table/item-types';
import { ConflictError } from '../../table/errors';
import { keys, runKeys } from '../../table/schema';
import type { Table } from '../../table/table';
import { conditionCheck, type TransactionWrite, TransactionRefusedError } from '../../table/transaction';
import { buildCondition, buildUpdate, type ExpressionNames } from '../../table/update-expression';

/**
 * The account's exact budget of model tokens per UTC month (docs/runs.md "Budget"). A call first reserves what it
 * could use (its input, estimated, and its maxTokens) on the month's item, conditional on what is held already
 * leaving room under the budget, and on the budget being the one it read (the account item, checked in the same
 * transaction); then it settles to what the model reported, in the transaction that records the run. Each is one
 * TransactWriteItems with a ClientRequestToken, so an SDK retry of an unanswered call applies it once. However many
 * calls race, the tokens held never pass the budget, and so neither do the tokens counted.
 */

export class BudgetExceededError extends Error {
  override readonly name = 'BudgetExceededError';
  constructor(
    /** The month's tokens counted, and held by calls under way. */
    readonly used: number,
    readonly limit: number,
  ) {
    super(`the account's budget of model tokens for the month is spent: ${used} of ${limit} counted or held`);
  }
}

/** What a call holds of the month's budget, until it settles. */
export interface Reservation {
  readonly accountId: string;
  readonly month: string;
  readonly day: string;
  readonly tokens: number;
}

/** Tokens of text as the reservation estimates them, and the local stand-in model counts: a token per 4 characters. */
export const estimatedTokens = (...texts: readonly string[]): number => Math.ceil(texts.reduce((sum, text) => sum + [...text].length, 0) / 4);

/** The account's budget as read, for `reserveTokens`: null for none. */
export const budgetOf = (account: Pick<AccountItem, 'models'>): number | null => account.models?.monthlyTokens ?? null;

/** How often a reservation reads the budget again when an owner changed it between its read and its write. */
const BUDGET_CHANGES_TOLERATED = 2;

/**
 * Holds `tokens` of the month's budget for a call about to be made, or refuses with BudgetExceededError (nothing
 * held). `budget` is what the caller read on the account; when an owner changed it since, it is read again.
 */
export async function reserveTokens(table: Table, accountId: string, budget: number | null, tokens: number, now: Date): Promise<Reservation> {
  const { month, day } = quotaPeriodAt(now);
  let limit = budget;
  for (let attempt = 0; ; attempt += 1) {
    try {
      await table.transact('reserveModelTokens', reservationWrites(accountId, month, limit, tokens));
      return { accountId, month, day, tokens };
    } catch (error) {
      if (!(error instanceof TransactionRefusedError)) throw error;
      // The budget it was held to first: a refusal under a budget no longer in force says nothing.
      if (!error.failedAt(1)) {
        if (error.failedAt(0) && limit !== null) throw new BudgetExceededError(Number(error.reasons[0]?.item?.held ?? 0), limit);
        throw error;
      }
      if (attempt >= BUDGET_CHANGES_TOLERATED) throw new ConflictError("the account's budget of model tokens changed while the run started: run it again");
      const account = await table.get<AccountItem>('readModelBudget', keys.account(accountId));
      if (!account) throw error;
      limit = budgetOf(account);
    }
  }
}

function reservationWrites(accountId: string, month: string, limit: number | null, tokens: number): TransactionWrite[] {
  return [
    {
      Update: {
        Key: runKeys.modelTokens(accountId, month),
        ...buildUpdate({
          set: {
            type: 'modelTokens',
            accountId,
            month,
            used: (e: ExpressionNames) => `if_not_exists(${e.name('used')}, ${e.value(0)})`,
            days: (e: ExpressionNames) => `if_not_exists(${e.name('days')}, ${e.value({})})`,
          },
          add: { held: tokens },
          // No arithmetic in a condition: the room left for this call is worked out here, from the budget it is held to.
          ...(limit === null ? {} : { condition: (e) => roomFor(e, limit - tokens) }),
        }),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    conditionCheck(
      keys.account(accountId),
      buildCondition((e) =>
        limit === null
          ? `attribute_exists(${e.name('pk')}) AND attribute_not_exists(${e.name('models.monthlyTokens')})`
          : `${e.name('models.monthlyTokens')} = ${e.value(limit)}`,
      ),
    ),
  ];
}

/** The month's item leaves `room` for the call: held at most that much, or nothing held yet. A call larger than the whole budget never fits. */
function roomFor(e: ExpressionNames, room: number): string {
  const held = e.name('held');
  return room < 0 ? `attribute_exists(${held}) AND attribute_not_exists(${held})` : `attribute_not_exists(${held}) OR ${held} <= ${e.value(room)}`;
}

/** The write that settles a reservation to what the call used: a write of the transaction that records the call. */
export function settlementWrite(reservation: Reservation, usedTokens: number): TransactionWrite {
  const today = `days.${reservation.day}`;
  return {
    Update: {
      Key: runKeys.modelTokens(reservation.accountId, reservation.month),
      ...buildUpdate({
        // ADD takes top-level attributes only: the day's counter, in the days map, is set from zero up.
        set: { [today]: (e: ExpressionNames) => `if_not_exists(${e.name(today)}, ${e.value(0)}) + ${e.value(usedTokens)}` },
        add: { held: usedTokens - reservation.tokens, used: usedTokens },
        condition: (e) => `attribute_exists(${e.name('pk')})`,
      }),
    },
  };
}

/** The month's model tokens counted, and per day (`01` to `31`). */
export async function modelTokensOf(table: Table, accountId: string, month: string): Promise<{ used: number; days: Record<string, number> }> {
  const item = await table.get<ModelTokensItem>('readModelTokens', runKeys.modelTokens(accountId, month));
  const days: Record<string, number> = {};
  for (const [day, count] of Object.entries(item?.days ?? {})) if (/^\d{2}$/.test(day)) days[day] = Number(count);
  return { used: Number(item?.used ?? 0), days };
}
