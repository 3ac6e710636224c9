import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { synthesizeService } from '../test/stack/synth';

export interface BundleReport {
  readonly functionName: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Median over fresh processes of the time to import the bundle (module scope included: client, config). */
  readonly loadMs: number;
  readonly loadRunsMs: readonly number[];
}

interface FunctionResource {
  Type: string;
  Metadata?: Record<string, unknown>;
  Properties?: { Handler?: string; Environment?: { Variables?: Record<string, unknown> } };
}

const LOAD_RUNS = 5;

/** Synthesizes the stack with real bundling, exactly as `cdk synth` would, and measures each function's bundle. */
export async function measureBundles(): Promise<BundleReport[]> {
  const outdir = await mkdtemp(join(tmpdir(), 'prompt-bench-synth-'));
  const { template } = synthesizeService({ bundle: true, outdir });
  const resources = template.toJSON().Resources as Record<string, FunctionResource>;
  const bundles: Array<{ functionName: string; path: string; environment: Record<string, string> }> = [];
  for (const resource of Object.values(resources)) {
    const assetPath = resource.Metadata?.['aws:asset:path'];
    const samId = resource.Metadata?.SamResourceId;
    // The service's functions; CDK's own (the dashboard files' upload) are not bundled by esbuild.
    if (resource.Type !== 'AWS::Lambda::Function' || typeof assetPath !== 'string' || typeof samId !== 'string') continue;
    bundles.push({ functionName: samId, path: join(outdir, assetPath, 'index.mjs'), environment: environmentOf(resource) });
  }
  // Not counted: the first read of a new file also measures the disk.
  for (const bundle of bundles) loadOnce(bundle.path, bundle.environment);
  // Round-robin, so that a busy moment of the machine falls on every bundle alike.
  const runs = new Map<string, number[]>(bundles.map((bundle) => [bundle.path, []]));
  for (let run = 0; run < LOAD_RUNS; run += 1) {
    for (const bundle of bundles) runs.get(bundle.path)?.push(loadOnce(bundle.path, bundle.environment));
  }
  const reports = bundles.map((bundle): BundleReport => {
    const loadRunsMs = runs.get(bundle.path) ?? [];
    return {
      functionName: bundle.functionName,
      bytes: statSync(bundle.path).size,
      gzipBytes: gzipSync(readFileSync(bundle.path)).length,
      loadMs: median(loadRunsMs),
      loadRunsMs,
    };
  });
  return reports.sort((a, b) => a.functionName.localeCompare(b.functionName));
}

/**
 * The environment the stack gives the function: its literal values as they are, and a stand-in for each value the
 * template resolves at deploy time (a table's name, a bus's name; a URL for a queue's URL).
 */
function environmentOf(resource: FunctionResource): Record<string, string> {
  const variables = resource.Properties?.Environment?.Variables ?? {};
  const standIn = (name: string) => (name.endsWith('_URL') ? `https://bench.example.com/${name.toLowerCase()}` : `bench-${name.toLowerCase()}`);
  return Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, typeof value === 'string' ? value : standIn(name)]));
}

/** One fresh Node process importing the bundle as Lambda's runtime would, with the environment the stack gives it. */
function loadOnce(bundle: string, environment: Record<string, string>): number {
  // Lambda's Node.js runtime gives a response-streaming function (the run function) its helpers as a global.
  const runtime = 'globalThis.awslambda = { streamifyResponse: (fn) => fn, HttpResponseStream: { from: (stream) => stream } };';
  const script = `${runtime} const t = performance.now(); await import(${JSON.stringify(`file://${bundle}`)}); process.stdout.write(String(performance.now() - t));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      ...environment,
      PATH: process.env.PATH,
      TABLE_NAME: 'bench',
      USER_POOL_ID: 'us-east-1_bench',
      UPGRADE_URL: 'https://example.com/upgrade',
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`loading ${bundle} failed: ${result.stderr}`);
  return Number(result.stdout);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
