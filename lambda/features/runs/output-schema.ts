import type { JsonObject, JsonValue } from '../../models/provider';

/**
 * A prompt's structured output (`config.schema`): the fields of the one JSON object its answer must be, each
 * `{name, type?, description?, enum?, required?}` (`type` one of JSON Schema's: string, number, integer, boolean,
 * array, object, null; `required` true unless said false). Elements that name no field are not fields. The run asks
 * the model for that object (jsonSchemaOf) and checks what it answered (checkOutput): `schema: {valid, errors}`.
 * Field names are the author's: data, never keys of an object that inherits anything.
 */
export interface OutputField {
  readonly name: string;
  readonly type?: FieldType;
  readonly description?: string;
  readonly enum?: readonly JsonValue[];
  readonly required: boolean;
}

const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'] as const;
type FieldType = (typeof FIELD_TYPES)[number];

export interface SchemaCheck {
  readonly valid: boolean;
  readonly errors: readonly string[];
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isJson(value: unknown): value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  return isRecord(value) && Object.values(value).every(isJson);
}

export function outputFieldsOf(schema: unknown): OutputField[] {
  if (!Array.isArray(schema)) return [];
  const seen = new Set<string>();
  const fields: OutputField[] = [];
  for (const element of schema) {
    if (!isRecord(element) || typeof element.name !== 'string' || element.name.trim() === '' || seen.has(element.name)) continue;
    seen.add(element.name);
    const type = FIELD_TYPES.find((candidate) => candidate === element.type);
    fields.push({
      name: element.name,
      ...(type ? { type } : {}),
      ...(typeof element.description === 'string' ? { description: element.description } : {}),
      ...(Array.isArray(element.enum) && element.enum.length > 0 && element.enum.every(isJson) ? { enum: element.enum } : {}),
      required: element.required !== false,
    });
  }
  return fields;
}

/** The JSON Schema of the object the fields make: what a forced tool or a response format is given. */
export function jsonSchemaOf(fields: readonly OutputField[]): JsonObject {
  const properties: JsonObject = Object.create(null);
  for (const field of fields) {
    const property: JsonObject = {};
    if (field.type) property.type = field.type;
    if (field.description) property.description = field.description;
    if (field.enum) property.enum = [...field.enum];
    properties[field.name] = property;
  }
  return {
    type: 'object',
    properties,
    required: fields.filter((field) => field.required).map((field) => field.name),
    additionalProperties: false,
  };
}

/** For a model asked in words (its catalog entry has no structured output): the instruction added to the system message. */
export function outputInstruction(fields: readonly OutputField[]): string {
  return `Answer with one JSON object and nothing else, matching this JSON Schema: ${JSON.stringify(jsonSchemaOf(fields))}`;
}

const typeMatches = (type: FieldType, value: unknown): boolean => {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
};

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Whether `output` (the parsed answer, or undefined when it was no JSON) is the object the fields make, and if not, why. */
export function checkOutput(output: unknown, fields: readonly OutputField[]): SchemaCheck {
  if (output === undefined) return { valid: false, errors: ['the answer is not JSON'] };
  if (!isRecord(output)) return { valid: false, errors: ['the answer is not a JSON object'] };
  const errors: string[] = [];
  for (const field of fields) {
    if (!Object.hasOwn(output, field.name)) {
      if (field.required) errors.push(`${field.name}: is missing`);
      continue;
    }
    const value = output[field.name];
    if (field.type && !typeMatches(field.type, value))
      errors.push(`${field.name}: must be ${field.type === 'integer' || field.type === 'array' || field.type === 'object' ? 'an' : 'a'} ${field.type}`);
    else if (field.enum && !field.enum.some((allowed) => sameJson(allowed, value)))
      errors.push(`${field.name}: must be one of ${field.enum.map((allowed) => JSON.stringify(allowed)).join(', ')}`);
  }
  const known = new Set(fields.map((field) => field.name));
  for (const name of Object.keys(output)) if (!known.has(name)) errors.push(`${name}: is not a field of the schema`);
  return { valid: errors.length === 0, errors };
}
