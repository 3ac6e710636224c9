import { contentOf, formOf, sameContent } from '../../../dashboard/src/features/versions/draft-form';

const stored = {
  systemMessage: 'You are kind.',
  userMessage: 'Hi ${name}',
  config: { model: 'gpt-4o-mini', temperature: 0.7, schema: [], inputData: { plan: 'pro' }, inputDataRootName: 'input' },
};

describe('the editor form', () => {
  test('round-trips a stored version', () => {
    expect(contentOf(formOf(stored))).toEqual({ content: stored });
  });

  test('a temperature outside 0 to 2, or not a number, is named by the API field path', () => {
    expect(contentOf({ ...formOf(stored), temperature: '3' }).problems).toEqual({ 'config.temperature': 'A number from 0 to 2, e.g. 0.7.' });
    expect(contentOf({ ...formOf(stored), temperature: 'warm' }).problems).toHaveProperty(['config.temperature']);
  });

  test('schema must be a JSON array, input data any JSON', () => {
    expect(contentOf({ ...formOf(stored), schema: '{}' }).problems).toHaveProperty(['config.schema']);
    expect(contentOf({ ...formOf(stored), inputData: '{oops' }).problems).toHaveProperty(['config.inputData']);
  });

  test('empty optional fields mean none', () => {
    expect(contentOf({ ...formOf(stored), schema: '', inputData: '', inputDataRootName: ' ' }).content?.config).toMatchObject({
      schema: [],
      inputData: null,
      inputDataRootName: null,
    });
  });

  test('a model is required', () => {
    expect(contentOf({ ...formOf(stored), model: '  ' }).problems).toHaveProperty(['config.model']);
  });

  test('reformatted JSON is not a change', () => {
    expect(sameContent(formOf(stored), { ...formOf(stored), inputData: '{"plan":"pro"}' })).toBe(true);
    expect(sameContent(formOf(stored), { ...formOf(stored), userMessage: 'Hello ${name}' })).toBe(false);
  });
});
