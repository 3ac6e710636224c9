/** The monthly budget of model tokens as an owner types it and as the page says it (docs/runs.md "Budget"). */

export const MAX_BUDGET = 1e12;

/** Empty is no budget (null); otherwise a whole number of tokens from 1, commas and spaces allowed as people write them. */
export function budgetFromText(
  text: string,
): { readonly tokens: number | null; readonly problem?: undefined } | { readonly tokens?: undefined; readonly problem: string } {
  const plain = text.replace(/[\s,_]/g, '');
  if (plain === '') return { tokens: null };
  const tokens = Number(plain);
  if (!/^\d+$/.test(plain) || tokens < 1 || tokens > MAX_BUDGET)
    return { problem: 'A whole number of tokens from 1 to 1,000,000,000,000, or empty for no budget.' };
  return { tokens };
}

export function budgetInWords(monthlyTokens: number | null): string {
  return monthlyTokens === null
    ? 'No budget now: runs may use any number of model tokens.'
    : `Now: ${monthlyTokens.toLocaleString('en-US')} model tokens a month (UTC).`;
}
