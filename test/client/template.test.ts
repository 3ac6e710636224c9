import { parseTemplate, PromptTemplate, TemplateVariablesError } from '../../client/src/index';

/** `${variable}` filling: the service never substitutes placeholders, so the client does. */

const template = (system: string, user: string) => new PromptTemplate('prompt welcome-email 1.0.0', system, user);

test('variables are every ${...} of both messages, each once, in order of first appearance', () => {
  expect(template('To ${name} at ${company}.', 'Dear ${name}, about ${topic} at ${company}.').variables).toEqual(['name', 'company', 'topic']);
});

test('compile fills every placeholder of both messages', () => {
  expect(template('Write to ${name}.', 'Welcome ${name} to ${company}!').compile({ name: 'Ada', company: 'Acme' })).toEqual({
    systemMessage: 'Write to Ada.',
    userMessage: 'Welcome Ada to Acme!',
  });
});

test('numbers and booleans are written as text', () => {
  expect(template('', '${count} seats, paid: ${paid}').compile({ count: 3, paid: false }).userMessage).toBe('3 seats, paid: false');
});

test('a value is inserted as it is, never read as a template itself', () => {
  expect(template('', 'Hi ${name}').compile({ name: '${company} $${x}' }).userMessage).toBe('Hi ${company} $${x}');
});

test('compile throws a TemplateVariablesError naming every missing variable', () => {
  const error = (() => {
    try {
      template('To ${name}.', 'About ${topic} for ${company}.').compile({ topic: 'billing', company: undefined } as never);
    } catch (caught) {
      return caught;
    }
  })();
  expect(error).toBeInstanceOf(TemplateVariablesError);
  expect(error).toMatchObject({ code: 'INVALID_VARIABLES', missing: ['name', 'company'], unknown: [] });
  expect((error as Error).message).toBe('Cannot compile prompt welcome-email 1.0.0: missing ${name}, ${company}');
});

test('without strict, values for names that are not variables are ignored', () => {
  expect(template('', 'Hi ${name}').compile({ name: 'Ada', nmae: 'typo' } as never).userMessage).toBe('Hi Ada');
});

test('with strict, compile also names every unknown value, and the variables there are', () => {
  expect(() => template('', 'Hi ${name}').compile({ nmae: 'Ada', extra: 1 } as never, { strict: true })).toThrow(
    "Cannot compile prompt welcome-email 1.0.0: missing ${name}; unknown ${nmae}, ${extra} (the prompt's variables: ${name})",
  );
});

test('a value that is not a string, number or boolean is refused by name', () => {
  expect(() => template('', 'Hi ${name}').compile({ name: { first: 'Ada' } } as never)).toThrow(
    'Cannot compile prompt welcome-email 1.0.0: not a string, number or boolean: ${name}',
  );
});

test('a literal ${ is written $${: it is text, not a variable', () => {
  const literal = template('', 'Use $${name} in a JavaScript template, and ${name} here.');
  expect(literal.variables).toEqual(['name']);
  expect(literal.compile({ name: 'Ada' }).userMessage).toBe('Use ${name} in a JavaScript template, and Ada here.');
});

test('${ without a closing brace, and an empty ${}, are text', () => {
  const text = template('', 'Costs ${} and ${unclosed');
  expect(text.variables).toEqual([]);
  expect(text.compile({}).userMessage).toBe('Costs ${} and ${unclosed');
});

test('a name is everything up to the next closing brace, as the playground reads it', () => {
  expect(parseTemplate('a ${first name}${x.y-z} b')).toEqual(['a ', { variable: 'first name' }, { variable: 'x.y-z' }, ' b']);
});
