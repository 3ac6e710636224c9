import { RemovalPolicy } from 'aws-cdk-lib';
import { DEFAULT_CATALOG, parseCatalog } from '../../lambda/models/catalog';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import {
  COGNITO_DOMAIN_PREFIX_PATTERN,
  COGNITO_DOMAIN_PREFIX_RESERVED,
  isPlaceholderUrl,
  SettingsError,
  STACK_ID_PART_EXAMPLE,
  STAGE_PATTERN,
  settingsFromContext,
  signInDomainPrefix,
  stackNameFor,
} from '../../lib/stack-config';

const lookup =
  (values: Record<string, unknown>) =>
  (key: string): unknown =>
    values[key];

const settings = (values: Record<string, unknown>) => settingsFromContext(lookup({ upgradeUrl: 'https://prompts.test/upgrade', ...values }));

describe('deployment settings from CDK context', () => {
  it('defaults to stage prod, RETAIN, 50 requests/s with a burst of 100, 30 days of logs at INFO, no alarm email, no WAF, 10 deliveries at once, nothing reserved', () => {
    expect(settings({})).toEqual({
      stage: 'prod',
      upgradeUrl: 'https://prompts.test/upgrade',
      removalPolicy: RemovalPolicy.RETAIN,
      throttleRateLimit: 50,
      throttleBurstLimit: 100,
      logRetention: RetentionDays.ONE_MONTH,
      alarmEmail: undefined,
      logLevel: 'INFO',
      wafRateLimit: undefined,
      apiGatewayAccountRole: true,
      deliveryConcurrency: 10,
      reservedConcurrency: false,
      models: DEFAULT_CATALOG,
    });
  });

  it('reads every option as the strings `-c name=value` gives', () => {
    expect(
      settings({
        stage: 'dev-alice',
        removalPolicy: 'destroy',
        throttleRateLimit: '7',
        throttleBurstLimit: '13',
        logRetentionDays: '7',
        alarmEmail: 'ops@prompts.test',
        logLevel: 'debug',
        wafRateLimit: '2000',
        apiGatewayAccountRole: 'false',
        deliveryConcurrency: '25',
        reservedConcurrency: 'true',
        models: '[{"modelId": "gpt-4o-mini", "provider": "openai", "inputUsdPerMTok": 0.15, "outputUsdPerMTok": 0.6, "baseUrl": "https://api.openai.com/v1"}]',
      }),
    ).toEqual({
      stage: 'dev-alice',
      upgradeUrl: 'https://prompts.test/upgrade',
      removalPolicy: RemovalPolicy.DESTROY,
      throttleRateLimit: 7,
      throttleBurstLimit: 13,
      logRetention: RetentionDays.ONE_WEEK,
      alarmEmail: 'ops@prompts.test',
      logLevel: 'DEBUG',
      wafRateLimit: 2000,
      apiGatewayAccountRole: false,
      deliveryConcurrency: 25,
      reservedConcurrency: true,
      models: parseCatalog(
        '[{"modelId": "gpt-4o-mini", "provider": "openai", "inputUsdPerMTok": 0.15, "outputUsdPerMTok": 0.6, "baseUrl": "https://api.openai.com/v1"}]',
      ),
    });
  });

  it('reads the numbers cdk.json holds as JSON numbers', () => {
    expect(settings({ throttleRateLimit: 20, logRetentionDays: 90 })).toMatchObject({
      throttleRateLimit: 20,
      logRetention: RetentionDays.THREE_MONTHS,
    });
  });

  it.each([
    [{ upgradeUrl: undefined }, 'Context "upgradeUrl" is required'],
    [{ upgradeUrl: '  ' }, 'Context "upgradeUrl" is required'],
    [{ upgradeUrl: '/pricing' }, 'must be an absolute URL'],
    [{ upgradeUrl: 'ftp://prompts.test/x' }, 'must be an http(s) URL'],
    [{ stage: 'prod_1' }, 'Context "stage" must start with a letter'],
    [{ stage: '1prod' }, 'Context "stage" must start with a letter'],
    [{ removalPolicy: 'snapshot' }, 'must be "retain" or "destroy"'],
    [{ throttleRateLimit: '0' }, 'Context "throttleRateLimit" must be a whole number of at least 1'],
    [{ throttleBurstLimit: '2.5' }, 'Context "throttleBurstLimit" must be a whole number'],
    [{ logRetentionDays: '10' }, "must be one of CloudWatch's periods"],
    [{ alarmEmail: 'ops' }, 'Context "alarmEmail" must be an email address'],
    [{ stage: { nested: true } }, 'Context "stage" must be a plain value'],
    [{ logLevel: 'verbose' }, 'Context "logLevel" must be one of TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL, SILENT'],
    [{ wafRateLimit: '5' }, 'Context "wafRateLimit" must be a whole number of requests per IP in 5 minutes, from 10'],
    [{ wafRateLimit: 'lots' }, 'Context "wafRateLimit" must be a whole number'],
    [{ apiGatewayAccountRole: 'maybe' }, 'Context "apiGatewayAccountRole" must be true or false'],
    [{ deliveryConcurrency: '1' }, 'Context "deliveryConcurrency" must be from 2 to 1000'],
    [{ deliveryConcurrency: '1001' }, 'Context "deliveryConcurrency" must be from 2 to 1000'],
    [{ deliveryConcurrency: 'ten' }, 'Context "deliveryConcurrency" must be a whole number'],
    [{ reservedConcurrency: 'yes' }, 'Context "reservedConcurrency" must be true or false'],
  ])('stops the synth with one clear message for %j', (values, message) => {
    expect(() => settings(values)).toThrow(SettingsError);
    expect(() => settings(values)).toThrow(message);
  });

  it.each([
    ['aws-dev', 'aws'],
    ['devAWS', 'aws'],
    ['amazon', 'amazon'],
    ['MyCognito', 'cognito'],
    ['raws1', 'aws'],
  ])("stops the synth when stage %s would put %s in the user pool's sign-in domain, which Cognito refuses", (stage, word) => {
    expect(() => settings({ stage })).toThrow(SettingsError);
    expect(() => settings({ stage })).toThrow(
      `Context "stage" must not contain "aws", "amazon" or "cognito": it names the user pool's sign-in domain (prompts-<stage>-...), where Cognito refuses "${word}"; got "${stage}"`,
    );
  });

  it("makes a domain prefix Cognito takes of every stage it accepts: the stack id's part never spells a refused word", () => {
    fc.assert(
      fc.property(fc.stringMatching(STAGE_PATTERN), fc.stringMatching(/^[0-9a-f]{8}$/), (stage, stackIdPart) => {
        const accepted = (() => {
          try {
            return settings({ stage }).stage === stage;
          } catch (error) {
            if (error instanceof SettingsError) return false;
            throw error;
          }
        })();
        const prefix = signInDomainPrefix(stage, stackIdPart);
        const valid = COGNITO_DOMAIN_PREFIX_PATTERN.test(prefix) && !COGNITO_DOMAIN_PREFIX_RESERVED.some((word) => prefix.includes(word));
        expect(accepted).toBe(valid);
      }),
      { numRuns: 500 },
    );
    expect(signInDomainPrefix('Dev-Alice', STACK_ID_PART_EXAMPLE)).toBe(`prompts-dev-alice-${STACK_ID_PART_EXAMPLE}`);
  });

  it('names the stack after the stage', () => {
    expect(stackNameFor('prod')).toBe('PromptService-prod');
  });

  it("recognises cdk.json's example.com upgrade URL as a placeholder and a real one as not", () => {
    expect(isPlaceholderUrl('https://example.com/upgrade')).toBe(true);
    expect(isPlaceholderUrl('https://www.example.org/x')).toBe(true);
    expect(isPlaceholderUrl('https://prompts.test/upgrade')).toBe(false);
  });

  it('accepts the defaults cdk.json ships, so `npx cdk synth` works from a fresh clone', () => {
    const cdkJson = JSON.parse(fs.readFileSync(path.join(__dirname, '../../cdk.json'), 'utf8')) as {
      app: string;
      context: Record<string, unknown>;
    };
    expect(cdkJson.app).toBe('npx tsx bin/app.ts');
    expect(settingsFromContext(lookup(cdkJson.context))).toMatchObject({
      stage: 'prod',
      removalPolicy: RemovalPolicy.RETAIN,
    });
  });
});
