export const PLANS = ['free', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

const MONTHLY_REQUESTS: Readonly<Record<Plan, number>> = { free: 5_000, pro: 50_000 };

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}

/** A key's own monthly limit, when it has one, overrides its account's plan. */
export function monthlyLimitFor(plan: Plan, keyLimit: number | undefined): number {
  return keyLimit ?? MONTHLY_REQUESTS[plan];
}
