import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

const AXE = readFileSync(join(require.resolve('axe-core'), '..', 'axe.min.js'), 'utf8');

interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly string[] }[];
}

/** The page's serious and critical violations of axe-core's WCAG 2.1 A and AA rules, each with where it is. */
export async function seriousViolations(page: Page): Promise<{ id: string; impact: string | null; help: string; where: string[] }[]> {
  // Through the DevTools protocol, so the page's Content-Security-Policy (script-src 'self') does not apply to it.
  await page.evaluate(AXE);
  const violations = (await page.evaluate(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((result) => result.violations)",
  )) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, where: violation.nodes.map((node) => node.target.join(' ')) }));
}
