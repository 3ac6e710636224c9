import { placeholdersIn, previewPieces, previewText, unfilled } from '../../../dashboard/src/logic/placeholders';

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
