/** The per-day usage chart's geometry, in SVG user units: plain numbers, so the picture is tested without a browser. */

export function daysInMonth(month: string): number {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, monthNumber, 0)).getUTCDate();
}

/** The smallest of 1, 2, 5, 10, 20, 50... at or above `value`: a scale top that reads well. */
export function niceCeiling(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

export interface Bar {
  /** Day of the month, from 1. */
  readonly day: number;
  readonly count: number;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface ChartGeometry {
  readonly width: number;
  readonly height: number;
  readonly plot: { readonly left: number; readonly top: number; readonly width: number; readonly height: number };
  readonly scaleTop: number;
  readonly bars: readonly Bar[];
  /** Horizontal grid lines: the value and where it sits. */
  readonly ticks: readonly { readonly value: number; readonly y: number }[];
  readonly total: number;
}

export const CHART_SIZE = { width: 640, height: 180, left: 44, right: 8, top: 8, bottom: 24 } as const;

/** Days of the month as the API counts them (`"01"`...`"31"`, UTC); a missing day counted nothing. */
export function chartGeometry(month: string, days: Readonly<Record<string, number>> | null): ChartGeometry {
  const dayCount = daysInMonth(month);
  const counts = Array.from({ length: dayCount }, (_, index) => Number(days?.[String(index + 1).padStart(2, '0')] ?? 0));
  const scaleTop = niceCeiling(Math.max(0, ...counts));
  const plot = {
    left: CHART_SIZE.left,
    top: CHART_SIZE.top,
    width: CHART_SIZE.width - CHART_SIZE.left - CHART_SIZE.right,
    height: CHART_SIZE.height - CHART_SIZE.top - CHART_SIZE.bottom,
  };
  const step = plot.width / dayCount;
  const bars = counts.map((count, index) => {
    const height = (count / scaleTop) * plot.height;
    return { day: index + 1, count, x: plot.left + index * step + step * 0.15, y: plot.top + plot.height - height, width: step * 0.7, height };
  });
  const ticks = [0, scaleTop / 2, scaleTop]
    .filter((value, index, all) => Number.isInteger(value) && all.indexOf(value) === index)
    .map((value) => ({ value, y: plot.top + plot.height - (value / scaleTop) * plot.height }));
  return { width: CHART_SIZE.width, height: CHART_SIZE.height, plot, scaleTop, bars, ticks, total: counts.reduce((a, b) => a + b, 0) };
}

/** This month and the eleven before it, newest first, as `YYYY-MM` in UTC (the quota's months). */
export function recentMonths(now: Date, count = 12): string[] {
  return Array.from({ length: count }, (_, back) => {
    const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
    return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
  });
}

/** `used` of `limit` as a whole percentage, capped at 100 for the bar (the words say the real numbers). */
export function usedShare(used: number, limit: number): number {
  if (limit <= 0) return used > 0 ? 100 : 0;
  return Math.min(100, Math.round((used / limit) * 100));
}
