import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { CfnResource, Stack } from 'aws-cdk-lib';
import { synthesizeService, TEMPLATE_VARIANTS, testApp } from './synth';

/**
 * cfn-lint, AWS's CloudFormation linter, over every template the stack's settings can make: no error and
 * no warning. A finding that is a known lag or a decision is suppressed on its resource
 * (`Metadata.cfn-lint.config.ignore_checks`, lib/policy-checks.ts suppressLintFinding) with its reason
 * beside it, and each suppression must still be needed. CDK's own CloudFormation validation, which `cdk synth`
 * runs and only warns about, finds nothing in them either, here as an error.
 */

const run = promisify(execFile);
jest.setTimeout(180_000);

interface Finding {
  readonly Rule: { readonly Id: string };
  readonly Level: string;
  readonly Message: string;
  readonly Filename: string;
  readonly Location: { readonly Path: readonly (string | number)[] };
}
type Template = { Resources: Record<string, { Metadata?: Record<string, unknown> }> };
interface ValidationReport {
  readonly pluginReports: { readonly pluginName: string; readonly violations: { readonly ruleName: string; readonly description: string }[] }[];
}

const INSTALL = 'cfn-lint is not on the PATH, so the templates are not checked: install it (`pip install cfn-lint==1.51.0`, or `pipx install cfn-lint`)';

/** cfn-lint's findings for some template files, as JSON: it exits non-zero exactly when it finds something. */
async function cfnLint(files: readonly string[]): Promise<Finding[]> {
  try {
    const { stdout } = await run('cfn-lint', ['--format', 'json', '--', ...files], { maxBuffer: 64 * 1024 * 1024 });
    return JSON.parse(stdout || '[]') as Finding[];
  } catch (error) {
    const failure = error as { code?: unknown; stdout?: string; stderr?: string };
    if (failure.code === 'ENOENT') throw new Error(INSTALL);
    // Exit codes 2, 4, 8 and their sums: errors, warnings, informational findings; anything else is a failure to run.
    if (typeof failure.code === 'number' && failure.stdout) return JSON.parse(failure.stdout) as Finding[];
    throw new Error(`cfn-lint failed to run: ${failure.stderr ?? String(error)}`);
  }
}

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'cfn-lint-'));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

/** Each variant's template as `cdk synth` writes it, and a copy without the suppressions. */
const templates = Object.entries(TEMPLATE_VARIANTS).map(([variant, context], index) => {
  const { app, template: synthesized } = synthesizeService({ context, cloudFormationValidation: true });
  const template = synthesized.toJSON() as Template;
  const validation = JSON.parse(fs.readFileSync(path.join(app.synth().directory, 'validation-report.json'), 'utf8')) as ValidationReport;
  const file = path.join(folder, `variant-${index}.template.json`);
  fs.writeFileSync(file, JSON.stringify(template, null, 1));
  const bare = structuredClone(template);
  for (const resource of Object.values(bare.Resources)) delete resource.Metadata?.['cfn-lint'];
  const bareFile = path.join(folder, `variant-${index}.bare.template.json`);
  fs.writeFileSync(bareFile, JSON.stringify(bare, null, 1));
  return { variant, template, file, bareFile, validation };
});

/** `<resource> <check>` for each suppression in a template, with its reason. */
function suppressionsOf(template: Template): Map<string, string | undefined> {
  const found = new Map<string, string | undefined>();
  for (const [id, resource] of Object.entries(template.Resources)) {
    const lint = resource.Metadata?.['cfn-lint'] as { config?: { ignore_checks?: string[] }; reasons?: Record<string, string> } | undefined;
    for (const check of lint?.config?.ignore_checks ?? []) found.set(`${id} ${check}`, lint?.reasons?.[check]);
  }
  return found;
}

const findingKey = (finding: Finding) => `${String(finding.Location.Path[1])} ${finding.Rule.Id}`;

it('is installed, in the version whose schemas the suppressions were written against or later', async () => {
  let version: string;
  try {
    version = (await run('cfn-lint', ['--version'])).stdout.trim();
  } catch (error) {
    throw (error as { code?: unknown }).code === 'ENOENT' ? new Error(INSTALL) : error;
  }
  process.stdout.write(`${version}\n`);
  const [major, minor] = (/(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  expect((major ?? 0) * 1000 + (minor ?? 0)).toBeGreaterThanOrEqual(1 * 1000 + 51);
});

/** One run over every file, the bare copies too: cfn-lint loads its schemas once. */
let findingsByFile: Map<string, Finding[]>;
beforeAll(async () => {
  const files = templates.flatMap(({ file, bareFile }) => [file, bareFile]);
  const findings = await cfnLint(files);
  findingsByFile = new Map(files.map((file) => [file, findings.filter((finding) => path.resolve(finding.Filename) === file)]));
});

it.each(templates.map(({ variant, file }) => [variant, file]))('finds no error and no warning in the template (%s)', (_variant, file) => {
  const findings = findingsByFile.get(file) ?? [];
  expect(findings.map((finding) => `${finding.Level} ${finding.Rule.Id} ${finding.Location.Path.join('/')}: ${finding.Message}`)).toEqual([]);
});

it.each(templates.map(({ variant, template, bareFile }) => [variant, template, bareFile] as const))(
  'finds exactly the suppressed findings once the suppressions are taken out, each suppression with its reason (%s)',
  (_variant, template, bareFile) => {
    const suppressed = suppressionsOf(template);
    const found = new Set((findingsByFile.get(bareFile) ?? []).map(findingKey));
    expect([...found].sort()).toEqual([...suppressed.keys()].sort());
    for (const [key, reason] of suppressed) expect([key, (reason ?? '').length > 80]).toEqual([key, true]);
  },
);

it.each(templates.map(({ variant, validation }) => [variant, validation] as const))(
  "passes CDK's own CloudFormation validation, made an error, with nothing to report (%s)",
  (_variant, validation) => {
    // The synth above would have failed on an error; nothing is left in the report at any severity either.
    expect(validation.pluginReports.flatMap(({ pluginName, violations }) => violations.map((v) => `${pluginName} ${v.ruleName}: ${v.description}`))).toEqual(
      [],
    );
  },
);

it("fails the synth on what CDK's own CloudFormation validation finds, as these templates are synthesized (the check is live)", () => {
  const app = testApp({ cloudFormationValidation: true });
  new CfnResource(new Stack(app, 'Invalid'), 'Bucket', { type: 'AWS::S3::Bucket', properties: { NoSuchProperty: true } });
  expect(() => app.synth()).toThrow(/NoSuchProperty/);
});

it("suppresses on the CloudWatch dashboard only the Tags that cfn-lint's schema lacks, and keeps the Tags", () => {
  const [{ template }] = templates as [(typeof templates)[number]];
  const dashboards = Object.values(template.Resources).filter((resource) => (resource as { Type?: string }).Type === 'AWS::CloudWatch::Dashboard');
  expect(dashboards).toHaveLength(1);
  expect((dashboards[0] as { Properties: { Tags?: unknown[] } }).Properties.Tags).toEqual(
    expect.arrayContaining([{ Key: 'service', Value: 'prompt-retrieval' }]),
  );
  expect(dashboards[0]?.Metadata?.['cfn-lint']).toMatchObject({ config: { ignore_checks: ['E3002'] } });
});
