import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

/**
 * The dashboard's static files for `npm start`: built once, on the first start of a fresh clone, so
 * `npm install && npm start` still does everything. Later starts serve what is there; after changing
 * dashboard/src, `npm run dashboard:build` builds it again.
 */

const REPOSITORY = resolve(__dirname, '..');
export const DASHBOARD_DIST = join(REPOSITORY, 'dashboard', 'dist');
const VITE_CONFIG = join(REPOSITORY, 'dashboard', 'vite.config.mts');

export interface DashboardBuild {
  readonly dist: string;
  /** Whether this call built it (false: it was there already). */
  readonly built: boolean;
  readonly elapsedMs: number;
}

/**
 * Builds dashboard/dist with Vite when it has no index.html yet, saying so on `log` first. Stacks
 * starting at once (parallel tests) may both build: each builds into its own folder and renames it
 * into place, so a half-written dashboard is never served, and the second copy is thrown away.
 */
export async function ensureDashboardBuilt(log: (line: string) => void = () => undefined, dist = DASHBOARD_DIST): Promise<DashboardBuild> {
  if (existsSync(join(dist, 'index.html'))) return { dist, built: false, elapsedMs: 0 };
  const started = Date.now();
  log('Building the dashboard (first start: dashboard/dist is missing)...');
  // Beside dist, so the rename never crosses a file system.
  const staging = join(dirname(dist), `.dist-building-${process.pid}-${started}`);
  // Vite's own command line, in a child process: its ESM-only API stays out of this process.
  const vite = join(REPOSITORY, 'node_modules', 'vite', 'bin', 'vite.js');
  try {
    await promisify(execFile)(process.execPath, [vite, 'build', '--config', VITE_CONFIG, '--outDir', staging, '--emptyOutDir'], {
      cwd: REPOSITORY,
      env: { ...process.env, NODE_ENV: 'production' },
    });
    await rename(staging, dist).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } catch (error) {
    const output = (error as { stderr?: string }).stderr || (error as Error).message;
    throw new Error(`building the dashboard failed (npm run dashboard:build shows why): ${output.trim().split('\n').slice(0, 5).join(' | ')}`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return { dist, built: true, elapsedMs: Date.now() - started };
}
