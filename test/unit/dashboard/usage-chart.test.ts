import { CHART_SIZE, chartGeometry, daysInMonth, niceCeiling, recentMonths, usedShare } from '../../../dashboard/src/features/usage/usage-chart';

describe('the per-day usage chart', () => {
  test('has one bar per day of the month, leap years included', () => {
    expect(chartGeometry('2026-11', {}).bars).toHaveLength(30);
    expect(chartGeometry('2028-02', {}).bars).toHaveLength(29);
    expect(daysInMonth('2026-12')).toBe(31);
  });

  test('bars stand on the axis, the busiest reaching the top of the scale', () => {
    const chart = chartGeometry('2026-11', { '01': 3, '15': 10 });
    const bottom = chart.plot.top + chart.plot.height;
    const [first] = chart.bars;
    const fifteenth = chart.bars[14];
    expect(chart.scaleTop).toBe(10);
    expect(fifteenth?.height).toBeCloseTo(chart.plot.height);
    expect(first?.height).toBeCloseTo(chart.plot.height * 0.3);
    for (const bar of chart.bars) expect(bar.y + bar.height).toBeCloseTo(bottom);
    expect(chart.total).toBe(13);
  });

  test('bars stay inside the plot and apart', () => {
    const chart = chartGeometry('2026-12', { '31': 7 });
    const last = chart.bars.at(-1);
    expect(last && last.x + last.width).toBeLessThanOrEqual(CHART_SIZE.width - CHART_SIZE.right);
    for (let i = 1; i < chart.bars.length; i += 1) {
      const [a, b] = [chart.bars[i - 1], chart.bars[i]];
      expect(a && b && a.x + a.width).toBeLessThan(b?.x ?? 0);
    }
  });

  test('no usage draws a flat chart on a scale of 1, not a division by zero', () => {
    const chart = chartGeometry('2026-11', null);
    expect(chart.scaleTop).toBe(1);
    expect(chart.bars.every((bar) => bar.height === 0 && Number.isFinite(bar.y))).toBe(true);
  });

  test('the scale top reads well: 1, 2, 5 times a power of ten', () => {
    expect([0, 1, 3, 7, 10, 11, 480, 1001].map(niceCeiling)).toEqual([1, 1, 5, 10, 10, 20, 500, 2000]);
  });

  test('months to choose from: this one and eleven before, across the year boundary', () => {
    const months = recentMonths(new Date('2026-02-10T00:00:00Z'));
    expect(months.slice(0, 3)).toEqual(['2026-02', '2026-01', '2025-12']);
    expect(months).toHaveLength(12);
  });

  test('use against the limit, capped for the bar', () => {
    expect(usedShare(50, 200)).toBe(25);
    expect(usedShare(300, 200)).toBe(100);
    expect(usedShare(0, 0)).toBe(0);
  });
});
