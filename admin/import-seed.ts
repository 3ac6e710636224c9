import type { AccountImporter } from './table/account-importer';
import type { ImportMode, ImportSummary } from './table/import-plan';
import { readSeedFiles, type Seed, type SeedSources, toAccountImports } from './seed-file';

/**
 * Reads and checks the whole seed (a file or a folder) before the store sees any of it; the store
 * then refuses the lot if any of it contradicts what is stored. Either way nothing is half-written.
 */
export async function importSeed(
  admin: AccountImporter,
  path: string,
  options: { dryRun?: boolean; mode?: ImportMode } = {},
): Promise<{ seed: Seed; summary: ImportSummary; sources: SeedSources }> {
  const { seed, sources } = await readSeedFiles(path);
  const summary = await admin.importAccounts(toAccountImports(seed), options);
  return { seed, summary, sources };
}

export function describeSummary(summary: ImportSummary): string {
  const parts = (['accounts', 'keys', 'prompts', 'versions', 'labels'] as const).map((kind) => {
    const { created, updated, unchanged } = summary[kind];
    return `${kind} ${created} created, ${updated} updated, ${unchanged} unchanged`;
  });
  return parts.join('; ');
}
