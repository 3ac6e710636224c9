import { compareVersions, isValidVersion } from '../../../../lambda/domain/version';

/** Versions as the service orders and validates them (lambda/domain/version.ts): one rule, one implementation. */
export { compareVersions, isValidVersion };

export const VERSION_HINT = 'MAJOR.MINOR.PATCH, digits only, e.g. 1.2.0';

/** The highest of the versions, or undefined for none. */
export function highestVersion(versions: readonly string[]): string | undefined {
  return versions.filter(isValidVersion).reduce<string | undefined>((high, v) => (high === undefined || compareVersions(v, high) > 0 ? v : high), undefined);
}

export interface NextVersions {
  /** The one suggested: the next patch after every version the prompt has, drafts included. */
  readonly patch: string;
  readonly minor: string;
  readonly major: string;
}

/**
 * What a new draft could be numbered. Above every existing version, published or draft, so the number
 * is free and publishing it moves `latest` up. A prompt without versions starts at 1.0.0.
 */
export function nextVersions(existing: readonly string[]): NextVersions {
  const high = highestVersion(existing);
  if (high === undefined) return { patch: '1.0.0', minor: '1.0.0', major: '1.0.0' };
  const [major, minor, patch] = high.split('.').map(Number) as [number, number, number];
  return { patch: `${major}.${minor}.${patch + 1}`, minor: `${major}.${minor + 1}.0`, major: `${major + 1}.0.0` };
}

/** Why a version typed for a new draft cannot be used, or undefined when it can. */
export function newVersionProblem(version: string, existing: readonly string[]): string | undefined {
  if (!isValidVersion(version)) return `Write the version as ${VERSION_HINT}.`;
  if (existing.includes(version)) return `Version ${version} exists already: pick a number the prompt does not have.`;
  return undefined;
}

/** Newest first, as the version list shows them. */
export function newestFirst<T extends { version: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => compareVersions(b.version, a.version));
}
