export interface QuotaPeriod {
  /** The UTC calendar month, `YYYY-MM`: usage is counted per key per such month. */
  readonly month: string;
  /** Unix seconds of the first second of the next UTC month, when the count starts again from zero. */
  readonly resetsAt: number;
}

export function quotaPeriodAt(now: Date): QuotaPeriod {
  const year = now.getUTCFullYear();
  const monthIndex = now.getUTCMonth();
  return {
    month: `${String(year).padStart(4, '0')}-${String(monthIndex + 1).padStart(2, '0')}`,
    resetsAt: Date.UTC(year, monthIndex + 1, 1) / 1000,
  };
}

export function secondsUntil(resetsAt: number, now: Date): number {
  return Math.max(0, Math.ceil(resetsAt - now.getTime() / 1000));
}
