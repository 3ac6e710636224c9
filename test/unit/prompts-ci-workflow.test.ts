import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * The GitHub Actions workflow docs/prompts-as-code.md offers teams, read from the Markdown itself, held to the
 * rules the page gives for it: a team copies it with the AWS role it assumes.
 */

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, unknown>;
}
interface Job {
  readonly if?: string;
  readonly permissions?: Record<string, string>;
  readonly steps: readonly Step[];
}
interface Workflow {
  readonly on: Record<string, unknown>;
  readonly permissions?: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

const doc = readFileSync(join(__dirname, '../../docs/prompts-as-code.md'), 'utf8');
const section = doc.slice(doc.indexOf('## From CI'));
const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
const workflow = parse(block) as Workflow;
const jobs = Object.entries(workflow.jobs);
const runs = (job: Job) => job.steps.flatMap((step) => (step.run === undefined ? [] : [step.run]));
const onPullRequests = jobs.filter(([, job]) => job.if?.includes("'pull_request'"));
const onPush = jobs.filter(([, job]) => job.if?.includes("'push'"));
const reachesAws = (job: Job) => job.steps.some((step) => step.uses?.startsWith('aws-actions/configure-aws-credentials'));

test('the section holds a workflow with a job for pull requests and one for pushes to main', () => {
  expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
  expect(onPullRequests.length).toBeGreaterThan(0);
  expect(onPush).toHaveLength(1);
});

test('no script has an expression in it: untrusted text reaches a run only through env, as a variable', () => {
  const scripts = jobs.flatMap(([, job]) => runs(job));
  expect(scripts.length).toBeGreaterThan(0);
  for (const script of scripts) expect(script).not.toContain('${{');
  const commitMessage = onPush[0]?.[1].steps.find((step) => step.env && Object.values(step.env).some((value) => String(value).includes('head_commit.message')));
  expect(commitMessage?.run).toContain('"$COMMIT_MESSAGE"');
});

/** The `$NAME`s a script expands outside double quotes; a `$(...)` is a script of its own, held to the same rule. */
function unquotedExpansions(script: string): string[] {
  const found: string[] = [];
  let rest = script;
  for (let inner = /\$\(([^()]*)\)/.exec(rest); inner; inner = /\$\(([^()]*)\)/.exec(rest)) {
    found.push(...unquotedExpansions(inner[1] ?? ''));
    rest = rest.replace(inner[0], 'output');
  }
  const outside = rest.replace(/'[^']*'/g, "''").replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return [...found, ...(outside.match(/\$[A-Za-z_{][A-Za-z0-9_}]*/g) ?? [])];
}

test('every variable a script reads is quoted', () => {
  expect(unquotedExpansions('echo "$A" $B "$(printf %s "$C" | cut -c 1-4)" $(echo $D)')).toEqual(['$D', '$B']);
  for (const script of jobs.flatMap(([, job]) => runs(job))) expect(unquotedExpansions(script)).toEqual([]);
});

test('pull requests run on pull_request, never pull_request_target, and the page says what happens for forks', () => {
  expect(Object.keys(workflow.on)).not.toContain('pull_request_target');
  expect(section).toMatch(/from forks/i);
  expect(section).toContain('never `pull_request_target`');
});

test('permissions: none by default, each job reads the repository, and only jobs that assume the AWS role may ask for a token', () => {
  expect(workflow.permissions).toEqual({});
  for (const [, job] of jobs) {
    expect(job.permissions).toEqual(reachesAws(job) ? { contents: 'read', 'id-token': 'write' } : { contents: 'read' });
  }
});

test('the AWS role is assumed through OIDC, never with stored keys', () => {
  for (const [, job] of jobs.filter(([, job]) => reachesAws(job))) {
    const step = job.steps.find((each) => each.uses?.startsWith('aws-actions/configure-aws-credentials'));
    expect(Object.keys(step?.with ?? {}).sort()).toEqual(['aws-region', 'role-to-assume']);
  }
  expect(block).not.toMatch(/secrets\.|AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY/);
});

test("a pull request's jobs do not fail on drift: diff reports (--report to the job summary), nothing pushes", () => {
  const scripts = onPullRequests.flatMap(([, job]) => runs(job));
  const diffs = scripts.filter((script) => script.includes('prompts diff'));
  expect(diffs.length).toBeGreaterThan(0);
  for (const script of diffs) expect(script).toMatch(/prompts diff .*--report "\$GITHUB_STEP_SUMMARY"/);
  for (const script of scripts) expect(script).not.toMatch(/prompts push(?![^\n]*--dry-run)/);
});

test('a pull request from a fork still gets its files checked, with no store, and the job that needs AWS skips forks', () => {
  const checks = onPullRequests.filter(([, job]) => runs(job).some((script) => script.includes('prompts check')));
  expect(checks.map(([, job]) => reachesAws(job))).toEqual([false]);
  for (const [, job] of onPullRequests.filter(([, job]) => reachesAws(job))) {
    expect(job.if).toContain('github.event.pull_request.head.repo.full_name == github.repository');
  }
});

test('publishing uses the installed CLI, not a clone of the service and its development install', () => {
  const [, publish] = onPush[0] ?? [];
  const scripts = runs(publish ?? { steps: [] });
  expect(scripts).toContain('npm install -g ./prompts-admin.tgz');
  expect(scripts.some((script) => /^prompts-admin prompts push --account "\$PROMPTS_ACCOUNT" --dir "\$PROMPTS_DIR" --note /m.test(script))).toBe(true);
  for (const [, job] of jobs) {
    for (const script of runs(job)) expect(script).not.toMatch(/\bnpm (ci|install)(?! -g \.\/prompts-admin\.tgz$)/m);
    for (const step of job.steps) expect(step.with?.repository).toBeUndefined();
  }
});
