import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { guardTestFileOf } from './cfn-guard/guarded-synth';
import { TEMPLATE_VARIANTS } from './synth';

/**
 * cfn-guard at synth (lib/policy-checks.ts): each template variant is checked by a test file of its own in
 * cfn-guard/ (guarded-synth.ts says what is checked); this file holds what concerns them all.
 */

it('checks every template variant, each in a test file of its own', () => {
  const files = fs.readdirSync(path.join(__dirname, 'cfn-guard')).filter((file) => file.endsWith('.test.ts'));
  expect(files.sort()).toEqual(Object.keys(TEMPLATE_VARIANTS).map(guardTestFileOf).sort());
});

it('runs the cfn-guard binary the package ships: nothing is downloaded at install or at synth', () => {
  const packageDir = path.dirname(require.resolve('@cdklabs/cdk-validator-cfnguard/package.json'));
  const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  for (const hook of ['preinstall', 'install', 'postinstall']) expect(manifest.scripts?.[hook]).toBeUndefined();
  const platform = os.platform() === 'darwin' ? 'macos' : 'ubuntu';
  const arch = os.arch() === 'arm64' ? 'aarch64' : 'x86_64';
  expect(fs.statSync(path.join(packageDir, 'bin', platform, arch, 'cfn-guard')).mode & 0o111).not.toBe(0);
});
