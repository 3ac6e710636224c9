import { ConfigError, loadAutomationConfig, loadConfig } from '../../lambda/config';

const base = { TABLE_NAME: 'prompts', UPGRADE_URL: 'https://example.com/upgrade' };

test('reads the table, upgrade URL, region and store endpoint from the environment', () => {
  expect(loadConfig({ ...base, AWS_REGION: 'eu-west-1', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).toEqual({
    tableName: 'prompts',
    upgradeUrl: 'https://example.com/upgrade',
    region: 'eu-west-1',
    storeEndpoint: 'http://127.0.0.1:8000',
    serviceName: 'prompt-service-local',
    logLevel: 'INFO',
  });
});

test("the service name and log level come from Powertools' own variables, as the stack sets them", () => {
  expect(loadConfig({ ...base, POWERTOOLS_SERVICE_NAME: 'prompt-service-prod', POWERTOOLS_LOG_LEVEL: 'debug' })).toMatchObject({
    serviceName: 'prompt-service-prod',
    logLevel: 'DEBUG',
  });
});

test('a log level Powertools does not know is a clear error naming the variable', () => {
  expect(() => loadConfig({ ...base, POWERTOOLS_LOG_LEVEL: 'verbose' })).toThrow(
    /POWERTOOLS_LOG_LEVEL must be one of TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL, SILENT, got "VERBOSE"/,
  );
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

describe('the rollout automation (loadAutomationConfig)', () => {
  test('needs the table alone: no upgrade URL and no user pool, as it answers no caller and adds nobody', () => {
    expect(loadAutomationConfig({ TABLE_NAME: 'prompts', POWERTOOLS_SERVICE_NAME: 'prompt-service-prod', POWERTOOLS_LOG_LEVEL: 'warn' })).toEqual({
      tableName: 'prompts',
      region: 'us-east-1',
      storeEndpoint: undefined,
      serviceName: 'prompt-service-prod',
      logLevel: 'WARN',
    });
  });

  test('a missing TABLE_NAME is a clear error naming it', () => {
    expect(() => loadAutomationConfig({})).toThrow(new ConfigError('Missing required environment variable TABLE_NAME'));
  });
});
