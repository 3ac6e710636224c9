import { ApiProblem, fieldMessage, problemFromAnswer, problemInWords } from '../../../dashboard/src/logic/api-errors';

describe('API errors in words', () => {
  test('a stale draft says who saved in between', () => {
    const problem = problemFromAnswer(412, {
      error: 'draft 1.0.1 changed since you read it',
      code: 'PRECONDITION_FAILED',
      current: { etag: 'abc', updatedBy: 'bob@example.com' },
    });
    expect(problemInWords(problem, 'Saving the draft')).toBe('Saving the draft failed: someone else changed it since you opened it (bob@example.com).');
  });

  test('a refused role keeps the API reason', () => {
    const problem = problemFromAnswer(403, { error: 'your role in this account (viewer) does not allow this: it needs editor', code: 'FORBIDDEN' });
    expect(problemInWords(problem, 'Publishing')).toBe(
      'Publishing failed: your role does not allow this. Your role in this account (viewer) does not allow this: it needs editor.',
    );
  });

  test('no words ever show the code or the status', () => {
    for (const [status, code] of [
      [400, 'BAD_REQUEST'],
      [401, 'UNAUTHORIZED'],
      [404, 'NOT_FOUND'],
      [409, 'CONFLICT'],
      [413, 'PAYLOAD_TOO_LARGE'],
      [428, 'PRECONDITION_REQUIRED'],
      [503, 'SERVICE_UNAVAILABLE'],
      [502, 'INTERNAL_ERROR'],
      [429, 'BUDGET_EXCEEDED'],
      [502, 'MODEL_ERROR'],
      [503, 'MODEL_THROTTLED'],
      [504, 'MODEL_TIMEOUT'],
    ] as const) {
      const words = problemInWords(problemFromAnswer(status, { code, error: 'x' }), 'Doing it');
      expect(words).not.toContain(code);
      expect(words).not.toContain(String(status));
    }
  });

  test('a run the budget cannot cover says the tokens used or held and the budget, and who can raise it', () => {
    const problem = problemFromAnswer(429, { error: 'spent', code: 'BUDGET_EXCEEDED', used: 1234567, limit: 1000000 });
    expect(problemInWords(problem, 'Running')).toBe(
      "Running failed: the account's monthly budget of model tokens is spent: 1,234,567 of 1,000,000 tokens used or held by runs under way. An owner can raise it in Settings.",
    );
  });

  test("a model's error keeps the provider's words; a throttled or slow model says what to do", () => {
    expect(problemInWords(problemFromAnswer(502, { error: 'the model does not take images', code: 'MODEL_ERROR' }), 'Running')).toBe(
      'Running failed: the model answered with an error: The model does not take images.',
    );
    expect(problemInWords(problemFromAnswer(503, { error: 'x', code: 'MODEL_THROTTLED' }))).toMatch(/busy.*Try again in a moment/);
    expect(problemInWords(problemFromAnswer(504, { error: 'x', code: 'MODEL_TIMEOUT' }), 'Running')).toBe('Running failed: the model took too long to answer.');
  });

  test('an answer that is not JSON still becomes words', () => {
    expect(problemInWords(problemFromAnswer(502, undefined))).toMatch(/could not answer just now/);
  });

  test('no answer at all says the service could not be reached', () => {
    expect(problemInWords(new ApiProblem(0, 'NETWORK', ''), 'Saving')).toBe(
      'Saving failed: the service could not be reached. Check your connection and try again.',
    );
  });

  test('a field problem drops the field name to sit next to the field', () => {
    const problem = problemFromAnswer(400, { error: 'config.temperature: must be from 0 to 2', code: 'BAD_REQUEST', field: 'config.temperature' });
    expect(problem.field).toBe('config.temperature');
    expect(fieldMessage(problem as ApiProblem)).toBe('Must be from 0 to 2.');
  });
});
