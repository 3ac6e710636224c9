import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { GUARD_NAMESPACE } from '../../lib/policy-checks';
import { acknowledgmentsIn, synthesizeService, TEMPLATE_VARIANTS } from './synth';

/**
 * The AWS Control Tower proactive controls, as the cfn-guard rules @cdklabs/cdk-validator-cfnguard ships, run
 * as a CDK validation plugin at every synth (lib/policy-checks.ts, bin/app.ts): no finding is left that is not
 * acknowledged on its construct with a reason, and every acknowledgment still answers a finding.
 */

jest.setTimeout(180_000);

type Template = { Resources: Record<string, { Metadata?: { 'aws:cdk:path'?: string } }> };
interface GuardReport {
  readonly pluginReports: { readonly pluginName: string; readonly conclusion: string; readonly violations: unknown[] }[];
}

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'cfn-guard-'));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

const variants = Object.entries(TEMPLATE_VARIANTS).map(([variant, context], index) => {
  const outdir = path.join(folder, `variant-${index}`);
  const { app, stack } = synthesizeService({ context, outdir, policyChecks: true });
  // Throws with the report when a plugin finds what no acknowledgment answers, as `cdk synth` stops.
  app.synth();
  return { variant, outdir, stack, templateFile: path.join(outdir, `${stack.stackName}.template.json`) };
});

it.each(variants.map(({ variant, outdir }) => [variant, outdir]))(
  'synthesizes with cfn-guard and cdk-nag as plugins, neither finding anything unacknowledged (%s)',
  (_variant, outdir) => {
    const report = JSON.parse(fs.readFileSync(path.join(outdir, 'validation-report.json'), 'utf8')) as GuardReport;
    const byPlugin = Object.fromEntries(report.pluginReports.map((plugin) => [plugin.pluginName, plugin]));
    expect(byPlugin[GUARD_NAMESPACE]).toMatchObject({ conclusion: 'success', violations: [] });
  },
);

it.each(variants.map(({ variant, stack, templateFile }) => [variant, stack, templateFile] as const))(
  'finds, without the acknowledgments, exactly what they acknowledge, each with its reason (%s)',
  (_variant, stack, templateFile) => {
    // The plugin alone, on the template as written: every finding, acknowledged or not.
    const { violations } = new CfnGuardValidator().validate({ templatePaths: [templateFile] } as never);
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
  },
);

it('runs the cfn-guard binary the package ships: nothing is downloaded at install or at synth', () => {
  const packageDir = path.dirname(require.resolve('@cdklabs/cdk-validator-cfnguard/package.json'));
  const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  for (const hook of ['preinstall', 'install', 'postinstall']) expect(manifest.scripts?.[hook]).toBeUndefined();
  const platform = os.platform() === 'darwin' ? 'macos' : 'ubuntu';
  const arch = os.arch() === 'arm64' ? 'aarch64' : 'x86_64';
  expect(fs.statSync(path.join(packageDir, 'bin', platform, arch, 'cfn-guard')).mode & 0o111).not.toBe(0);
});
