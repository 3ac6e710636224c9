/**
 * DynamoDB expressions built from attribute names and values: every name goes through a placeholder (so a
 * reserved word or a name from a request never trips the parser) and every value through another, each
 * numbered, so two parts of one expression never collide.
 */
export class ExpressionNames {
  private readonly names: Record<string, string> = {};
  private readonly values: Record<string, unknown> = {};
  private readonly byName = new Map<string, string>();

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

  /** A placeholder for a value. */
  value(value: unknown): string {
    const placeholder = `:v${Object.keys(this.values).length}`;
    this.values[placeholder] = value;
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

export interface UpdateSpec {
  /** Attributes set to these values; `undefined` values are left out. */
  readonly set?: Readonly<Record<string, unknown>>;
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
  if (sets.length > 0) clauses.push(`SET ${sets.map(([name, value]) => `${expression.name(name)} = ${expression.value(value)}`).join(', ')}`);
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
