/**
 * A label names one published version of a prompt (`production`, `staging`) and is moved by people.
 * `latest` is reserved: it always means the highest published version, and no one can point it elsewhere.
 */
export const LATEST_LABEL = 'latest';

export const LABEL_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

export const LABEL_RULE = '1 to 32 characters of a-z, 0-9, "-" or "_", starting with a letter';

/** A name a request may ask for, `latest` included. */
export function isValidLabel(value: string): boolean {
  return LABEL_PATTERN.test(value);
}

/** A name an operator may point at a version: any valid one but `latest`. */
export function isSettableLabel(value: string): boolean {
  return isValidLabel(value) && value !== LATEST_LABEL;
}

/**
 * The version a prompt's labels (label -> version, as the head stores them) give one label. Only the
 * map's own names count: `constructor` is a label like any other, never what every object inherits.
 */
export function labelledVersion(labels: Readonly<Record<string, string>> | undefined, label: string): string | undefined {
  return labels !== undefined && Object.hasOwn(labels, label) ? labels[label] : undefined;
}
