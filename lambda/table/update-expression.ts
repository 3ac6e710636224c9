/**
 * DynamoDB expressions built from attribute names and values: every name goes through a placeholder (so a
 * reserved word or a name from a request never trips the parser) and every value through another, each
 * numbered, so two parts of one expression never collide. The one way this folder writes an update, a
 * condition, a filter or a projection that names attributes.
 */
export class ExpressionNames {
  private readonly names: Record<string, string> = {};
  private readonly values: Record<string, unknown> = {};
  private readonly byName = new Map<string, string>();
  private readonly byValue = new Map<unknown, string>();

  /** A placeholder for an attribute, or for a path of them (`latest.version`). */
  name(path: string): string {
    return path
      .split('.')
      .map((part) => {
        let placeholder = this.byName.get(part);
        if (placeholder === undefined) {
          placeholder = `#n${this.byName.size}`;
          this.byName.set(part, placeholder);
          this.names[placeholder] = part;
        }
        return placeholder;
      })
      .join('.');
  }

  /** A placeholder for a value; the same value (or the same object) given twice has the same one. */
  value(value: unknown): string {
    let placeholder = this.byValue.get(value);
    if (placeholder === undefined) {
      placeholder = `:v${this.byValue.size}`;
      this.byValue.set(value, placeholder);
      this.values[placeholder] = value;
    }
    return placeholder;
  }

  /** The placeholders used, as a command takes them (no empty map: DynamoDB refuses one). */
  get attributes(): { ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
    return {
      ExpressionAttributeNames: { ...this.names },
      ...(Object.keys(this.values).length > 0 ? { ExpressionAttributeValues: { ...this.values } } : {}),
    };
  }
}

/** What an attribute is set to: a value, or an expression written with the update's placeholders (`if_not_exists(...)`, `a + b`). */
export type SetValue = unknown | ((expression: ExpressionNames) => string);

export interface UpdateSpec {
  /**
   * Attributes (or dotted paths) set to these values; `undefined` values are left out. A function is no value
   * but the expression the attribute is set to, written with the same placeholders.
   */
  readonly set?: Readonly<Record<string, SetValue>>;
  readonly remove?: readonly string[];
  /** Numbers added to, or sets merged into, these attributes. */
  readonly add?: Readonly<Record<string, unknown>>;
  /** Elements taken out of these set attributes. */
  readonly delete?: Readonly<Record<string, unknown>>;
  /** The write's condition, written with the same placeholders. */
  readonly condition?: (expression: ExpressionNames) => string;
}

export interface BuiltUpdate {
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** An UpdateItem's expressions from what it sets, removes, adds and deletes, and its condition. */
export function buildUpdate(spec: UpdateSpec): BuiltUpdate {
  const expression = new ExpressionNames();
  const clauses: string[] = [];
  const sets = Object.entries(spec.set ?? {}).filter(([, value]) => value !== undefined);
  const setTo = (value: SetValue): string =>
    typeof value === 'function' ? (value as (expression: ExpressionNames) => string)(expression) : expression.value(value);
  if (sets.length > 0) clauses.push(`SET ${sets.map(([name, value]) => `${expression.name(name)} = ${setTo(value)}`).join(', ')}`);
  if (spec.remove && spec.remove.length > 0) clauses.push(`REMOVE ${spec.remove.map((name) => expression.name(name)).join(', ')}`);
  const adds = Object.entries(spec.add ?? {});
  if (adds.length > 0) clauses.push(`ADD ${adds.map(([name, value]) => `${expression.name(name)} ${expression.value(value)}`).join(', ')}`);
  const deletes = Object.entries(spec.delete ?? {});
  if (deletes.length > 0) clauses.push(`DELETE ${deletes.map(([name, value]) => `${expression.name(name)} ${expression.value(value)}`).join(', ')}`);
  if (clauses.length === 0) throw new RangeError('an update must change something');
  const condition = spec.condition?.(expression);
  return { UpdateExpression: clauses.join(' '), ...(condition ? { ConditionExpression: condition } : {}), ...expression.attributes };
}

/** A condition alone (a ConditionCheck, a Put's or a Delete's condition) with its placeholders. */
export function buildCondition(condition: (expression: ExpressionNames) => string): {
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  const expression = new ExpressionNames();
  const ConditionExpression = condition(expression);
  return { ConditionExpression, ...expression.attributes };
}

export interface BuiltProjection {
  ProjectionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
}

/** A read's projection: the attributes (or dotted paths) it takes, each named by placeholder. */
export function buildProjection(paths: readonly string[]): BuiltProjection {
  if (paths.length === 0) throw new RangeError('a projection must name an attribute');
  const expression = new ExpressionNames();
  const ProjectionExpression = paths.map((path) => expression.name(path)).join(', ');
  return { ProjectionExpression, ExpressionAttributeNames: expression.attributes.ExpressionAttributeNames };
}

/** Marks a name an update built once leaves open (prepareUpdate); no attribute this code writes starts with it. */
const OPEN_NAME = '\u0000';

/** A name left open in an update built once, given at each call under `key` (prepareUpdate). Usable in paths. */
export const openName = (key: string): string => `${OPEN_NAME}${key}`;

class OpenValue {
  constructor(readonly key: string) {}
}

/** A value left open in an update built once, given at each call under `key` (prepareUpdate). */
export const openValue = (key: string): unknown => new OpenValue(key);

/** An update built once: each call gives the open names and values, by key, and gets the update to send. */
export type PreparedUpdate = (given: Readonly<Record<string, unknown>>) => BuiltUpdate;

/**
 * An update built once, at module load, for a path where building it at each call would cost (the read
 * API's count): its expressions are made here, with openName and openValue where a call's own names and
 * values go, and each call only copies the two maps and fills those in.
 */
export function prepareUpdate(spec: UpdateSpec): PreparedUpdate {
  const built = buildUpdate(spec);
  const fixedNames: Record<string, string> = {};
  const openNames: [string, string][] = [];
  for (const [placeholder, name] of Object.entries(built.ExpressionAttributeNames)) {
    if (name.startsWith(OPEN_NAME)) openNames.push([placeholder, name.slice(OPEN_NAME.length)]);
    else fixedNames[placeholder] = name;
  }
  const fixedValues: Record<string, unknown> = {};
  const openValues: [string, string][] = [];
  for (const [placeholder, value] of Object.entries(built.ExpressionAttributeValues ?? {})) {
    if (value instanceof OpenValue) openValues.push([placeholder, value.key]);
    else fixedValues[placeholder] = value;
  }
  const { UpdateExpression, ConditionExpression } = built;
  return (given) => {
    const names = { ...fixedNames };
    for (const [placeholder, key] of openNames) {
      const name = given[key];
      if (typeof name !== 'string') throw new RangeError(`the update's name ${key} was not given`);
      names[placeholder] = name;
    }
    const values = { ...fixedValues };
    for (const [placeholder, key] of openValues) {
      const value = given[key];
      if (value === undefined) throw new RangeError(`the update's value ${key} was not given`);
      values[placeholder] = value;
    }
    return {
      UpdateExpression,
      ...(ConditionExpression === undefined ? {} : { ConditionExpression }),
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
    };
  };
}
