import { ConfigError, loadConfig } from '../../lambda/config';

const base = { TABLE_NAME: 'prompts', UPGRADE_URL: 'https://example.com/upgrade' };

test('reads the table, upgrade URL, region and store endpoint from the environment', () => {
  expect(loadConfig({ ...base, AWS_REGION: 'eu-west-1', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).toEqual({
    tableName: 'prompts',
    upgradeUrl: 'https://example.com/upgrade',
    region: 'eu-west-1',
    storeEndpoint: 'http://127.0.0.1:8000',
  });
});

test('the endpoint is optional: without it the SDK talks to DynamoDB itself', () => {
  expect(loadConfig(base).storeEndpoint).toBeUndefined();
});

test.each([['TABLE_NAME'], ['UPGRADE_URL']])('a missing %s is a clear error naming it', (name) => {
  const env: Record<string, string> = { ...base };
  delete env[name];
  expect(() => loadConfig(env)).toThrow(new ConfigError(`Missing required environment variable ${name}`));
  expect(() => loadConfig({ ...env, [name]: '  ' })).toThrow(ConfigError);
});

test('an upgrade URL that is not absolute is refused', () => {
  expect(() => loadConfig({ ...base, UPGRADE_URL: '/upgrade' })).toThrow(/UPGRADE_URL must be an absolute URL/);
});

test('the upgrade URL is given back exactly as configured', () => {
  expect(loadConfig({ ...base, UPGRADE_URL: 'https://example.com' }).upgradeUrl).toBe('https://example.com');
});
