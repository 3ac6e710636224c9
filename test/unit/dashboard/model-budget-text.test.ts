import { budgetFromText, budgetInWords } from '../../../dashboard/src/features/settings/model-budget-text';

/** The monthly budget of model tokens as an owner types it (dashboard/src/features/settings/model-budget-text.ts). */

test('empty is no budget; a whole number, with commas or spaces, is the budget', () => {
  expect(budgetFromText('  ')).toEqual({ tokens: null });
  expect(budgetFromText('1,000,000')).toEqual({ tokens: 1_000_000 });
  expect(budgetFromText('50 000')).toEqual({ tokens: 50_000 });
});

test('zero, fractions, words and more than a trillion are refused in words', () => {
  for (const text of ['0', '1.5', 'ten', '-5', '1000000000001']) expect(budgetFromText(text).problem).toMatch(/^A whole number of tokens/);
});

test('the budget said in words', () => {
  expect(budgetInWords(null)).toBe('No budget now: runs may use any number of model tokens.');
  expect(budgetInWords(250000)).toBe('Now: 250,000 model tokens a month (UTC).');
});
