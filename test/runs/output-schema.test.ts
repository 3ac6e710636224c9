import { checkOutput, jsonSchemaOf, outputFieldsOf } from '../../lambda/features/runs/output-schema';

/** A prompt's `config.schema`: the fields of the JSON object a run asks for, and the check of what it got. */

const fields = outputFieldsOf([
  { name: 'reply', type: 'string', description: 'The answer' },
  { name: 'count', type: 'integer' },
  { name: 'tags', type: 'array', required: false },
  { name: 'urgency', enum: ['low', 'high'] },
  { name: '__proto__', type: 'boolean', required: false },
  'not a field',
  { type: 'string' },
  { name: 'reply', type: 'number' },
]);

test('the fields are the elements that name one, the first of each name, required unless said otherwise', () => {
  expect(fields.map((field) => [field.name, field.required])).toEqual([
    ['reply', true],
    ['count', true],
    ['tags', false],
    ['urgency', true],
    ['__proto__', false],
  ]);
});

test('the JSON Schema asked for is an object of those fields, no others, its names as data', () => {
  const schema = jsonSchemaOf(fields);
  expect(JSON.parse(JSON.stringify(schema))).toEqual({
    type: 'object',
    properties: {
      reply: { type: 'string', description: 'The answer' },
      count: { type: 'integer' },
      tags: { type: 'array' },
      urgency: { enum: ['low', 'high'] },
      ['__proto__']: { type: 'boolean' },
    },
    required: ['reply', 'count', 'urgency'],
    additionalProperties: false,
  });
  expect(Object.hasOwn(schema.properties as object, '__proto__')).toBe(true);
  expect(Reflect.get({}, 'type')).toBeUndefined();
});

test('an answer that is the object is valid', () => {
  expect(checkOutput({ reply: 'hi', count: 2, urgency: 'low', tags: [] }, fields)).toEqual({ valid: true, errors: [] });
});

test('each way an answer misses is named', () => {
  expect(checkOutput(JSON.parse('{"reply": 1, "count": 2.5, "urgency": "meh", "tags": {}, "__proto__": "x", "extra": null}'), fields)).toEqual({
    valid: false,
    errors: [
      'reply: must be a string',
      'count: must be an integer',
      'tags: must be an array',
      'urgency: must be one of "low", "high"',
      '__proto__: must be a boolean',
      'extra: is not a field of the schema',
    ],
  });
  expect(checkOutput({}, fields).errors).toEqual(['reply: is missing', 'count: is missing', 'urgency: is missing']);
  expect(checkOutput([1], fields)).toEqual({ valid: false, errors: ['the answer is not a JSON object'] });
  expect(checkOutput(undefined, fields)).toEqual({ valid: false, errors: ['the answer is not JSON'] });
});
