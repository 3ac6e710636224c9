import type { CheckResult } from './checks';

/** One line per check, ✓ or ✗ with what was asked and what came back, then the verdict. */
export function formatReport(apiUrl: string, results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((result) => result.name.length));
  const lines = results.map((result) => `${result.ok ? '✓' : '✗'} ${result.name.padEnd(width)}  ${result.detail}`);
  const failed = results.filter((result) => !result.ok).length;
  lines.push('', failed === 0 ? `All ${results.length} checks passed against ${apiUrl}` : `${failed} of ${results.length} checks failed against ${apiUrl}`);
  return `${lines.join('\n')}\n`;
}
