import { placeholderChange, placeholdersIn, placeholderWarnings, previewPieces, previewText, unfilled } from '../../../dashboard/src/logic/placeholders';

describe('the editor finds ${variable} placeholders as the client does', () => {
  test('lists each variable once, in order of first appearance across both messages', () => {
    expect(placeholdersIn('You help ${company}.', 'Hi ${name}, welcome to ${company}. ${name}!')).toEqual(['company', 'name']);
  });

  test('$${ is a literal ${, not a variable', () => {
    expect(placeholdersIn('Write $${name} to use a variable, like ${example}.')).toEqual(['example']);
  });

  test('an empty ${} and an unclosed ${ are text', () => {
    expect(placeholdersIn('Nothing ${} here ${ and here')).toEqual([]);
  });

  test('a name is everything up to the next }, spaces and dots included', () => {
    expect(placeholdersIn('${user.first name}')).toEqual(['user.first name']);
  });

  test('no text, no variables', () => {
    expect(placeholdersIn('', '')).toEqual([]);
  });
});

describe('the preview fills the sample values in', () => {
  test('variables with a sample become the sample; literal $${ shows as ${', () => {
    expect(
      previewText(
        'Hi ${name} from ${team}, cost $${price}',
        new Map([
          ['name', 'Ada'],
          ['team', 'Acme'],
        ]),
      ),
    ).toBe('Hi Ada from Acme, cost ${price}');
  });

  test('a variable without a sample, or with an empty one, stays a named gap', () => {
    expect(previewPieces('Hi ${name}, ${plan}', new Map([['plan', '']]))).toEqual([
      { text: 'Hi ' },
      { variable: 'name', value: undefined },
      { text: ', ' },
      { variable: 'plan', value: undefined },
    ]);
    expect(previewText('Hi ${name}', new Map())).toBe('Hi ${name}');
  });

  test('a sample value is put in as it is, never read as a template itself', () => {
    expect(previewText('${a}', new Map([['a', '${b}']]))).toBe('${b}');
  });

  test('unfilled lists the variables still without a value', () => {
    expect(
      unfilled(
        ['name', 'plan', 'team'],
        new Map([
          ['name', 'Ada'],
          ['plan', ''],
        ]),
      ),
    ).toEqual(['plan', 'team']);
  });

  test('names such as constructor and __proto__ are variables like any other, never inherited values', () => {
    expect(previewText('${constructor} ${__proto__}', new Map())).toBe('${constructor} ${__proto__}');
    expect(unfilled(['constructor', '__proto__'], new Map([['__proto__', 'x']]))).toEqual(['constructor']);
    expect(previewText('${__proto__}', new Map([['__proto__', 'filled']]))).toBe('filled');
  });
});

describe('the variables a label move adds and removes, in plain words', () => {
  const messages = (systemMessage: string, userMessage: string) => ({ systemMessage, userMessage });

  test('a variable the new version needs and the old did not is added; one it dropped is removed', () => {
    expect(placeholderChange(messages('You help ${company}.', 'Hi ${name}'), messages('You help ${company}.', 'Hi ${name} in ${city}'))).toEqual({
      added: ['city'],
      removed: [],
    });
    expect(placeholderChange(messages('', 'Hi ${name} from ${company}'), messages('', 'Hi ${name}'))).toEqual({ added: [], removed: ['company'] });
  });

  test('read as the client reads them: $${ is a literal, and a variable moved between the messages is the same variable', () => {
    expect(placeholderChange(messages('', 'Hi ${name}'), messages('Call them ${name}', 'Hi $${literal}'))).toEqual({ added: [], removed: [] });
  });

  test('a label that pointed nowhere: every variable is new', () => {
    expect(placeholderChange(undefined, messages('', '${a} ${b}'))).toEqual({ added: ['a', 'b'], removed: [] });
  });

  test('callers that fill only the old variables are warned of the one they will miss', () => {
    expect(placeholderWarnings({ added: ['x'], removed: [] })).toEqual({ added: 'Callers that fill only the old variables will miss ${x}.' });
  });

  test('several are listed with commas and a final "and"', () => {
    expect(placeholderWarnings({ added: ['city', 'date', 'time'], removed: [] }).added).toBe(
      'Callers that fill only the old variables will miss ${city}, ${date} and ${time}.',
    );
  });

  test('a removed variable is harmless, said as such; nothing to say when the variables are the same', () => {
    expect(placeholderWarnings({ added: [], removed: ['company'] })).toEqual({
      removed: '${company} is no longer used: a value sent for it is ignored (compile with strict: true refuses it).',
    });
    expect(placeholderWarnings({ added: [], removed: ['a', 'b'] }).removed).toBe(
      '${a} and ${b} are no longer used: a value sent for them is ignored (compile with strict: true refuses them).',
    );
    expect(placeholderWarnings({ added: [], removed: [] })).toEqual({});
  });

  test('when the label pointed nowhere before, the callers must fill the new ones', () => {
    expect(placeholderWarnings({ added: ['name'], removed: [] }, false).added).toBe('Callers must fill ${name}: the label pointed at no version before.');
  });
});
