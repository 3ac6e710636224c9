/** A prompt version: MAJOR.MINOR.PATCH, digits only, no leading zeros, each part at most 9 digits. */
export const VERSION_PATTERN = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/;

export function isValidVersion(value: string): boolean {
  return VERSION_PATTERN.test(value);
}

function parts(version: string): [number, number, number] {
  const match = VERSION_PATTERN.exec(version);
  if (!match) {
    throw new RangeError(`Not a MAJOR.MINOR.PATCH version: ${JSON.stringify(version)}`);
  }
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Semantic-version order: 1.10.0 sorts after 1.9.0. */
export function compareVersions(a: string, b: string): number {
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i += 1) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return 0;
}

/**
 * A string whose plain (byte) order is the semantic-version order, so a store can sort
 * versions for us: every part zero-padded to the 9 digits a part may have.
 */
export function versionSortKey(version: string): string {
  return parts(version)
    .map((part) => String(part).padStart(9, '0'))
    .join('.');
}
