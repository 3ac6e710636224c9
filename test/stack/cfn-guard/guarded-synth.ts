import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import type { PolicyValidationPluginReportBeta1 } from 'aws-cdk-lib';
import { GUARD_NAMESPACE } from '../../../lib/policy-checks';
import { acknowledgmentsIn, synthesizeService, TEMPLATE_VARIANTS } from '../synth';

/**
 * The AWS Control Tower proactive controls, as the cfn-guard rules @cdklabs/cdk-validator-cfnguard ships, run
 * as a CDK validation plugin at every synth (lib/policy-checks.ts, bin/app.ts): no finding is left that is not
 * acknowledged on its construct with a reason, and every acknowledgment still answers a finding.
 *
 * One template variant per test file, so that jest's workers check the variants side by side: cfn-guard takes
 * a minute or more of CPU over each template (two thirds of it in the kernel: its allocator maps and unmaps
 * memory some 420,000 times a run), and one file checking every variant in turn was the suite's longest.
 */

type Template = { Resources: Record<string, { Metadata?: { 'aws:cdk:path'?: string } }> };
interface GuardReport {
  readonly pluginReports: { readonly pluginName: string; readonly conclusion: string; readonly violations: unknown[] }[];
}
type Violations = PolicyValidationPluginReportBeta1['violations'];

/** The test file that checks a variant: `cfn-guard/<variant in lower case, words joined by '-'>.test.ts`. */
export function guardTestFileOf(variant: string): string {
  return `${variant
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}.test.ts`;
}

/** The tests of one variant of TEMPLATE_VARIANTS; its test file is named after it (guardTestFileOf). */
export function checkVariantWithGuard(variant: string): void {
  const context = TEMPLATE_VARIANTS[variant];
  if (!context) throw new Error(`${variant} is not one of synth.ts's TEMPLATE_VARIANTS: ${Object.keys(TEMPLATE_VARIANTS).join(', ')}`);
  jest.setTimeout(180_000);

  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfn-guard-'));
  afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

  // What the plugin found at synth, before CDK takes the acknowledged findings out of its report (CDK edits the
  // report in place, hence the copy): the same cfn-guard run over the same file as running the plugin again.
  const validate = CfnGuardValidator.prototype.validate;
  const runs: { templatePaths: string[]; violations: Violations }[] = [];
  jest.spyOn(CfnGuardValidator.prototype, 'validate').mockImplementation(function (this: CfnGuardValidator, validation) {
    const report = validate.call(this, validation);
    runs.push({ templatePaths: [...validation.templatePaths], violations: structuredClone(report.violations) });
    return report;
  });
  const { app, stack } = synthesizeService({ context, outdir, policyChecks: true });
  // Throws with the report when a plugin finds what no acknowledgment answers, as `cdk synth` stops.
  app.synth();
  const templateFile = path.join(outdir, `${stack.stackName}.template.json`);

  it(`is checked by the test file named after it (${variant})`, () => {
    expect(path.basename(expect.getState().testPath ?? '')).toBe(guardTestFileOf(variant));
  });

  it(`synthesizes with cfn-guard and cdk-nag as plugins, neither finding anything unacknowledged (${variant})`, () => {
    const report = JSON.parse(fs.readFileSync(path.join(outdir, 'validation-report.json'), 'utf8')) as GuardReport;
    const byPlugin = Object.fromEntries(report.pluginReports.map((plugin) => [plugin.pluginName, plugin]));
    expect(byPlugin[GUARD_NAMESPACE]).toMatchObject({ conclusion: 'success', violations: [] });
  });

  it(`finds, without the acknowledgments, exactly what they acknowledge, each with its reason (${variant})`, () => {
    // The plugin's own run, on the template as written: every finding, acknowledged or not.
    expect(runs.map(({ templatePaths }) => templatePaths)).toEqual([[templateFile]]);
    const violations = runs.flatMap((run) => run.violations);
    const template = JSON.parse(fs.readFileSync(templateFile, 'utf8')) as Template;
    const pathOf = (logicalId: string) => template.Resources[logicalId]?.Metadata?.['aws:cdk:path'] ?? logicalId;
    const acknowledged = acknowledgmentsIn(stack).filter(({ ruleId }) => ruleId.startsWith(`${GUARD_NAMESPACE}::`));
    const used = new Set<(typeof acknowledged)[number]>();
    const unanswered: string[] = [];
    for (const violation of violations) {
      for (const resource of violation.violatingResources) {
        const resourcePath = pathOf(resource.resourceLogicalId ?? '');
        // As CDK matches them: an acknowledgment on the resource or on a construct that holds it.
        const answer = acknowledged.find(
          ({ ruleId, path: at }) => ruleId === `${GUARD_NAMESPACE}::${violation.ruleName}` && (resourcePath === at || resourcePath.startsWith(`${at}/`)),
        );
        if (answer) used.add(answer);
        else unanswered.push(`${violation.ruleName} ${resourcePath}`);
      }
    }
    expect(unanswered).toEqual([]);
    expect(acknowledged.filter((ack) => !used.has(ack)).map(({ ruleId, path: at }) => `${ruleId} ${at}`)).toEqual([]);
    for (const { reason } of acknowledged) expect(reason.length).toBeGreaterThan(80);
  });
}
