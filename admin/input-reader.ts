/**
 * Reading untrusted JSON into typed values, one field at a time, so every refusal names the exact
 * place: `accounts[0].prompts[2].versions[1].version: must be MAJOR.MINOR.PATCH`.
 */

export class InputError extends Error {
  override readonly name = 'InputError';
}

export type Json = Record<string, unknown>;

export function fail(path: string, problem: string): never {
  throw new InputError(`${path || '(top level)'}: ${problem}`);
}

export const at = (path: string, field: string | number): string => (typeof field === 'number' ? `${path}[${field}]` : path ? `${path}.${field}` : field);

/** An object with only the fields we know: a misspelt field is a mistake worth hearing about. */
export function readObject(value: unknown, path: string, known: readonly string[]): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'must be an object');
  const unknown = Object.keys(value).find((field) => !known.includes(field));
  if (unknown !== undefined) fail(at(path, unknown), `unknown field (expected one of ${known.join(', ')})`);
  return value as Json;
}

export function readArray(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, 'must be an array');
  return value;
}

export function readOptionalArray(object: Json, field: string, path: string): unknown[] {
  return object[field] === undefined ? [] : readArray(object[field], at(path, field));
}

export function readString(object: Json, field: string, path: string, options: { nonEmpty?: boolean; max?: number } = {}): string {
  const value = object[field];
  const where = at(path, field);
  if (value === undefined) fail(where, 'is required');
  if (typeof value !== 'string') fail(where, 'must be a string');
  if (options.nonEmpty && value.trim() === '') fail(where, 'must not be empty');
  if (options.max !== undefined && value.length > options.max) fail(where, `must be at most ${options.max} characters`);
  return value;
}

export function readOptionalString(object: Json, field: string, path: string, options: { nonEmpty?: boolean; max?: number } = {}): string | undefined {
  return object[field] === undefined ? undefined : readString(object, field, path, options);
}

export function readBoolean(object: Json, field: string, path: string): boolean {
  const value = object[field];
  if (value === undefined) fail(at(path, field), 'is required');
  if (typeof value !== 'boolean') fail(at(path, field), 'must be true or false');
  return value;
}

export function readOptionalBoolean(object: Json, field: string, path: string): boolean | undefined {
  return object[field] === undefined ? undefined : readBoolean(object, field, path);
}

export function readNumber(object: Json, field: string, path: string, range: { min: number; max: number }): number {
  const value = object[field];
  const where = at(path, field);
  if (value === undefined) fail(where, 'is required');
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(where, 'must be a number');
  if (value < range.min || value > range.max) fail(where, `must be between ${range.min} and ${range.max}`);
  return value;
}

export function readOptionalCount(object: Json, field: string, path: string): number | undefined {
  const value = object[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    fail(at(path, field), 'must be a whole number of 0 or more');
  }
  return value;
}

/**
 * How a reader runs each field's read: `immediately` stops at the first refusal (a seed file, a request);
 * a `Problems` keeps going and gathers every refusal, so one run lists all that is wrong with a file.
 */
export type Take = <T>(read: () => T) => T | undefined;

export const immediately: Take = (read) => read();

export class Problems {
  readonly messages: string[] = [];

  readonly take: Take = (read) => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      this.messages.push(error.message);
      return undefined;
    }
  };
}

/** readObject, with every unknown field refused on its own (each one a problem of its own when gathering). */
export function readObjectEach(value: unknown, path: string, known: readonly string[], take: Take): Json | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return take(() => fail(path, 'must be an object'));
  for (const field of Object.keys(value).filter((each) => !known.includes(each))) {
    take(() => fail(at(path, field), `unknown field (expected one of ${known.join(', ')})`));
  }
  return value as Json;
}
