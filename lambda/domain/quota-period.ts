export interface QuotaPeriod {
  /** The UTC calendar month, `YYYY-MM`: usage is counted per key per such month. */
  readonly month: string;
  /** Unix seconds of the first second of the next UTC month, when the count starts again from zero. */
  readonly resetsAt: number;
  /** The UTC day of the month, `01` to `31`: each key also counts its requests per such day. */
  readonly day: string;
}

export function quotaPeriodAt(now: Date): QuotaPeriod {
  const year = now.getUTCFullYear();
  const monthIndex = now.getUTCMonth();
  return {
    month: `${String(year).padStart(4, '0')}-${String(monthIndex + 1).padStart(2, '0')}`,
    resetsAt: Date.UTC(year, monthIndex + 1, 1) / 1000,
    day: String(now.getUTCDate()).padStart(2, '0'),
  };
}

export function secondsUntil(resetsAt: number, now: Date): number {
  return Math.max(0, Math.ceil(resetsAt - now.getTime() / 1000));
}

/** The month before `month` (`YYYY-MM`). */
export function previousMonth(month: string): string {
  const [year = 0, monthNumber = 1] = month.split('-').map(Number);
  const date = new Date(Date.UTC(year, monthNumber - 2, 1));
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}
