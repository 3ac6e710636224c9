import { highestVersion, newestFirst, newVersionProblem, nextVersions } from '../../../dashboard/src/features/versions/versions';

describe('the next version suggested for a new draft', () => {
  test('a prompt without versions starts at 1.0.0', () => {
    expect(nextVersions([]).patch).toBe('1.0.0');
  });

  test('the next patch after the highest version, by semantic order not text order', () => {
    expect(nextVersions(['1.9.0', '1.10.0', '1.2.3'])).toEqual({ patch: '1.10.1', minor: '1.11.0', major: '2.0.0' });
  });

  test('drafts count: the suggestion is above every version the prompt has', () => {
    expect(nextVersions(['1.0.0', '1.0.1']).patch).toBe('1.0.2');
  });

  test('highest ignores what is not a version', () => {
    expect(highestVersion(['1.0.0', 'latest', '01.2.0'])).toBe('1.0.0');
    expect(highestVersion([])).toBeUndefined();
  });
});

describe('a version typed for a new draft', () => {
  test('must be MAJOR.MINOR.PATCH as the service validates it', () => {
    expect(newVersionProblem('1.2', [])).toMatch(/MAJOR\.MINOR\.PATCH/);
    expect(newVersionProblem('1.02.0', [])).toMatch(/MAJOR\.MINOR\.PATCH/);
    expect(newVersionProblem('v1.2.0', [])).toMatch(/MAJOR\.MINOR\.PATCH/);
  });

  test('must be free', () => {
    expect(newVersionProblem('1.0.0', ['1.0.0'])).toMatch(/exists already/);
  });

  test('a free, well-formed version has no problem', () => {
    expect(newVersionProblem('1.0.1', ['1.0.0'])).toBeUndefined();
  });
});

test('versions are listed newest first', () => {
  expect(newestFirst([{ version: '1.2.0' }, { version: '1.10.0' }, { version: '0.9.9' }]).map((v) => v.version)).toEqual(['1.10.0', '1.2.0', '0.9.9']);
});
