/**
 * The functions' log lines per request before each request wrote one line (issue 21): a log record and two
 * embedded-metric blobs, measured by this benchmark's per-request probes (`npm run bench`) on the
 * telemetry of commit 64a9b63, and kept here for comparison.
 */
export const LOG_LINES_BEFORE_SOURCE = 'measured by the same probes on commit 64a9b63, 2026-11-23';

export const LOG_LINES_BEFORE: Readonly<Record<string, { readonly lines: number; readonly bytes: number }>> = {
  'GET /prompts/{id}?version= (pinned, 2 KB)': { lines: 3, bytes: 1115 },
  'GET /prompts/{id} (latest, 2 KB)': { lines: 3, bytes: 1122 },
  'GET /prompts/{id}?version= (pinned, 300 KB)': { lines: 3, bytes: 1117 },
  'GET /prompts/{id} (latest, 300 KB)': { lines: 3, bytes: 1127 },
  'GET /prompts (1,500 prompts)': { lines: 3, bytes: 1131 },
  'GET /prompts/{id} of no such prompt (404)': { lines: 3, bytes: 1146 },
  'GET /prompts/{id} without a key (401)': { lines: 3, bytes: 1044 },
  'GET /prompts/{id} over the quota (429)': { lines: 3, bytes: 1223 },
  'OPTIONS /prompts/{id} (preflight)': { lines: 3, bytes: 914 },
};
