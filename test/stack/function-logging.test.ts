import { MANAGEMENT_FUNCTIONS } from '../../lambda/management-api/routes';
import { EVENT_DELIVERY_FUNCTIONS } from '../../lib/event-delivery';
import { ROLLOUT_AUTOMATION_FUNCTIONS } from '../../lib/rollout-automation';
import { synthesizeService } from './synth';

/**
 * What the functions send to CloudWatch Logs: their own JSON lines, one a request, and none of Lambda's
 * START, END and REPORT lines (docs/logs-and-metrics.md).
 */

type LoggingConfig = { LogFormat?: string; SystemLogLevel?: string; ApplicationLogLevel?: string; LogGroup?: unknown };

function loggingConfigs(context: Record<string, string> = {}): Record<string, LoggingConfig> {
  const functions = synthesizeService({ context }).template.findResources('AWS::Lambda::Function') as Record<
    string,
    { Properties: { LoggingConfig?: LoggingConfig } }
  >;
  return Object.fromEntries(
    Object.entries(functions)
      // CDK's own function that uploads the dashboard's files runs at deploy only, never per request.
      .filter(([id]) => !id.startsWith('CustomCDKBucketDeployment'))
      .map(([id, fn]) => [id, fn.Properties.LoggingConfig ?? {}]),
  );
}

const byDefault = loggingConfigs();

test('every function logs in JSON with system log level WARN: Lambda writes no START, END or REPORT line', () => {
  // The read API's four (GET twice, the fallback, MCP), the management API's and the rollout automation's.
  expect(Object.keys(byDefault)).toHaveLength(4 + MANAGEMENT_FUNCTIONS.length + ROLLOUT_AUTOMATION_FUNCTIONS.length + EVENT_DELIVERY_FUNCTIONS.length);
  for (const config of Object.values(byDefault)) {
    expect(config).toMatchObject({ LogFormat: 'JSON', SystemLogLevel: 'WARN', LogGroup: { Ref: expect.any(String) } });
  }
});

test("Lambda's filter on the function's own lines is the level the functions log at (-c logLevel, INFO by default)", () => {
  for (const config of Object.values(byDefault)) expect(config.ApplicationLogLevel).toBe('INFO');
  for (const config of Object.values(loggingConfigs({ logLevel: 'debug' }))) expect(config.ApplicationLogLevel).toBe('DEBUG');
});

test("Powertools' CRITICAL and SILENT are Lambda's FATAL, the least it filters at", () => {
  for (const level of ['critical', 'silent']) {
    for (const config of Object.values(loggingConfigs({ logLevel: level }))) expect(config.ApplicationLogLevel).toBe('FATAL');
  }
});
