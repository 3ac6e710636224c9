/**
 * zod/mini words no problem until told to: route.ts (which every management function loads, as it reads every body
 * and query) tells it to in English, so the API's 400s name a field's default problems in words; the contracts
 * alone do not, so the dashboard, which bundles them and shows no schema's message, carries no locale. Each half is
 * loaded in a module registry of its own: full zod, which other modules of the stack import, sets English on its own.
 */

const wrongName = { name: 5 };

test('the contracts alone, as the dashboard bundles them, word a problem with no locale', async () => {
  await jest.isolateModulesAsync(async () => {
    const z = await import('zod/mini');
    const { KeyCreateBody } = await import('../../lambda/management-api/handlers/key-contracts');
    expect(z.safeParse(KeyCreateBody, wrongName).error?.issues[0]?.message).toBe('Invalid input');
  });
});

test('once route.ts is loaded, as in every management function, a default problem is worded in English', async () => {
  await jest.isolateModulesAsync(async () => {
    const z = await import('zod/mini');
    const { KeyCreateBody } = await import('../../lambda/management-api/handlers/key-contracts');
    await import('../../lambda/management-api/route');
    expect(z.safeParse(KeyCreateBody, wrongName).error?.issues[0]?.message).toBe('Invalid input: expected string, received number');
  });
});
