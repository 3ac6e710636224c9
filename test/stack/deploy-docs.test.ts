import * as fs from 'node:fs';
import * as path from 'node:path';
import { DELIVERY_MAX_RECEIVES, DISPATCH_PARALLELIZATION } from '../../lib/event-delivery';
import { AUTOMATION_RESERVED_CONCURRENCY } from '../../lib/rollout-automation';
import { CONTEXT_KEYS, DEFAULT_SETTINGS } from '../../lib/stack-config';
import { triesToOutlast } from '../../lambda/webhook-delivery/delivery-job';
import { synthesizeService } from './synth';

/**
 * docs/deploy.md and the README say what the template holds; where a fact can be read from the template or the
 * code, it is read here and held to what they say: the options and their defaults, the outputs, the functions,
 * the number of alarms, the functions' environment.
 */

const ROOT = path.join(__dirname, '../..');
const deployDoc = fs.readFileSync(path.join(ROOT, 'docs/deploy.md'), 'utf8');
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const cdkJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };

type Resource = { Type: string; Metadata?: Record<string, unknown>; Properties?: Record<string, unknown> };
const template = synthesizeService().template.toJSON() as { Resources: Record<string, Resource>; Outputs: Record<string, unknown> };
const samIds = Object.values(template.Resources)
  .filter((resource) => resource.Type === 'AWS::Lambda::Function' && resource.Metadata?.SamResourceId !== undefined)
  .map((resource) => String(resource.Metadata?.SamResourceId));

/** The rows of the Markdown table that follows a heading, as cells. */
function tableAfter(document: string, heading: string): string[][] {
  const start = document.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const lines = document.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
];

describe('docs/deploy.md', () => {
  const options = tableAfter(deployDoc, '## Deploy').map((row) => row[0] ?? '');
  const optionNames = options.flatMap((cell) => [...cell.matchAll(/`(\w+)`/g)].map((match) => match[1]));

  it('lists every -c option the stack reads, and no other', () => {
    expect([...optionNames].sort()).toEqual(Object.values(CONTEXT_KEYS).sort());
  });

  it("gives each option the default the stack uses, and cdk.json's values agree", () => {
    const rows = tableAfter(deployDoc, '## Deploy');
    for (const [key, value] of Object.entries(DEFAULT_SETTINGS)) {
      const row = rows.find((cells) => (cells[0] ?? '').split(' / ').some((name) => name === `\`${key}\``));
      const defaults = (row?.[1] ?? '').split(' / ');
      const names = (row?.[0] ?? '').split(' / ');
      expect([key, defaults[names.indexOf(`\`${key}\``)]]).toEqual([key, `\`${String(value)}\``]);
      if (key in cdkJson.context) expect([key, cdkJson.context[key]]).toEqual([key, value]);
    }
  });

  it('names every output of the template', () => {
    const cdkOwn = /^(ApiRestApiEndpoint|ManagementRestApiEndpoint)/;
    for (const output of Object.keys(template.Outputs)) {
      const named = cdkOwn.test(output) ? `\`${cdkOwn.exec(output)?.[1]}…\`` : `\`${output}\``;
      expect([output, deployDoc.includes(named)]).toEqual([output, true]);
    }
  });

  it('tables every function of the stack by its sam local id, and counts them in words, as the README does', () => {
    const tabled = tableAfter(deployDoc, '## The functions, and what each may do').map((row) => (row[0] ?? '').replaceAll('`', ''));
    expect(tabled.sort()).toEqual([...samIds].sort());
    const count = NUMBER_WORDS[samIds.length] as string;
    expect(deployDoc).toContain(`${count} Lambda functions of the service`);
    expect(deployDoc).toContain(`for each of the ${count} functions`);
    expect(readme).toContain(`${count} Lambda functions`);
  });

  it('counts the alarms the template has, in the cost table', () => {
    const alarms = Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm').length;
    expect(deployDoc).toContain(`${alarms} alarms $${(alarms * 0.1).toFixed(alarms % 10 === 0 ? 0 : 2)}`);
  });

  it('tables exactly the environment variables lambda/config.ts reads', () => {
    const config = fs.readFileSync(path.join(ROOT, 'lambda/config.ts'), 'utf8');
    const read = new Set([
      ...[...config.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map((match) => match[1] as string),
      ...[...config.matchAll(/required\(env, '([A-Z][A-Z0-9_]+)'\)/g)].map((match) => match[1] as string),
    ]);
    read.delete('AWS_DEFAULT_REGION'); // the SDK's own fallback for AWS_REGION, never set by the stack
    const tabled = tableAfter(deployDoc, '## Configuration of the functions').map((row) => (row[0] ?? '').replaceAll('`', ''));
    expect(tabled.sort()).toEqual([...read].sort());
  });

  describe('"Concurrency: what one account can hold"', () => {
    const heading = '## Concurrency: what one account can hold';
    const rows = new Map(tableAfter(deployDoc, heading).map((cells) => [(cells[0] ?? '').replaceAll('`', ''), cells[1] ?? '']));
    /** The section's text, its line breaks as spaces. */
    const section = deployDoc.slice(deployDoc.indexOf(heading), deployDoc.indexOf('\n## ', deployDoc.indexOf(heading) + heading.length)).replace(/\s+/g, ' ');
    const firstNumber = (cell: string | undefined): number => Number(/`(\d+)`/.exec(cell ?? '')?.[1]);
    const mappings = Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Lambda::EventSourceMapping');

    it("gives the delivery function's bound as its SQS event source's MaximumConcurrency, the setting's default", () => {
      const sqs = mappings.find((mapping) => mapping.Properties?.ScalingConfig !== undefined);
      expect(sqs?.Properties?.ScalingConfig).toEqual({ MaximumConcurrency: firstNumber(rows.get('WebhookDeliveryFunction')) });
      expect(firstNumber(rows.get('WebhookDeliveryFunction'))).toBe(DEFAULT_SETTINGS.deliveryConcurrency);
    });

    it("gives the dispatcher's bound as its stream event source's ParallelizationFactor", () => {
      const stream = mappings.find((mapping) => mapping.Properties?.ParallelizationFactor !== undefined);
      expect(firstNumber(rows.get('EventDispatcherFunction'))).toBe(stream?.Properties?.ParallelizationFactor);
      expect(DISPATCH_PARALLELIZATION).toBe(1);
    });

    it('says nothing is reserved by default, which the template holds, and what reserving takes in all, and of the limit', () => {
      expect(section).toContain('**Nothing is reserved by default.**');
      expect(Object.values(template.Resources).filter((resource) => resource.Properties?.ReservedConcurrentExecutions !== undefined)).toEqual([]);
      const reserved = DEFAULT_SETTINGS.deliveryConcurrency + 2 * AUTOMATION_RESERVED_CONCURRENCY;
      expect(firstNumber(rows.get('RolloutStepsFunction'))).toBe(AUTOMATION_RESERVED_CONCURRENCY);
      expect(section).toContain(`each rollout function ${AUTOMATION_RESERVED_CONCURRENCY}, ${reserved} in all by default`);
      expect(section).toContain(`must be at least ${reserved + 10}`);
    });

    it("gives the delivery queue's maxReceiveCount and the receives of a day's outage as the stack has them", () => {
      const queue = Object.values(template.Resources).find(
        (resource) =>
          resource.Type === 'AWS::SQS::Queue' &&
          (resource.Properties?.RedrivePolicy as { maxReceiveCount?: number } | undefined)?.maxReceiveCount === DELIVERY_MAX_RECEIVES,
      );
      expect(queue).toBeDefined();
      expect(section).toContain(`\`maxReceiveCount\` ${DELIVERY_MAX_RECEIVES} receives`);
      expect(section).toContain(`a day costs a message ${triesToOutlast(24 * 3600)} receives`);
    });
  });

  it('names no setting the stack no longer has', () => {
    const mentioned = [...`${deployDoc}\n${readme}`.matchAll(/-c (\w+)=/g)].map((match) => match[1] as string).filter((name) => name !== 'name'); // `-c name=value`, the form
    expect(mentioned.length).toBeGreaterThan(3);
    for (const name of mentioned) expect(Object.values(CONTEXT_KEYS)).toContain(name);
  });
});
