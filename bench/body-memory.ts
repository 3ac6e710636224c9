/**
 * `npm run bench:bodies`: what large request bodies cost `npm start` in memory. Starts the stack as a child
 * process (as a developer runs it), sends 20 concurrent 9.9 MB bodies to each local gateway (the read API, the
 * management API under /api without a token, the user pool's stand-in), and prints the child's resident memory
 * before and after each burst. docs/performance.md keeps the figures.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { startStack, temporaryFolder } from '../test/e2e/support/processes';

const BODY_BYTES = Math.round(9.9 * 1024 * 1024);
const CONCURRENT = 20;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

function post(url: string, body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const outgoing = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': body.length },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    // The server may answer and close before the whole body is sent: that is an answer too.
    outgoing.on('error', () => resolve(0));
    outgoing.end(body);
  });
}

async function main(): Promise<void> {
  const folder = await temporaryFolder('bench-bodies');
  const stack = await startStack({ DATA_DIR: folder.path });
  const body = Buffer.alloc(BODY_BYTES, 'a');
  const targets: [string, string][] = [
    ['read API, POST /prompts', `${stack.apiUrl}/prompts`],
    ['management API, POST /api/accounts/x/keys, no token', `${stack.dashboardUrl}/api/accounts/x/keys`],
    ['user pool stand-in, POST /login', `${stack.identityUrl}/login`],
  ];
  try {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rows = [`| target | statuses | RSS before (MB) | RSS after (MB) |`, '|---|---|---|---|'];
    for (const [name, url] of targets) {
      const before = rssMb(stack.pid);
      const statuses = await Promise.all(Array.from({ length: CONCURRENT }, () => post(url, body)));
      const after = rssMb(stack.pid);
      const counts = [...new Set(statuses)].map((status) => `${statuses.filter((s) => s === status).length}x ${status || 'closed'}`);
      rows.push(`| ${name} | ${counts.join(', ')} | ${before} | ${after} |`);
    }
    process.stdout.write(`${CONCURRENT} concurrent bodies of ${(BODY_BYTES / 1024 / 1024).toFixed(1)} MB each:\n\n${rows.join('\n')}\n`);
  } finally {
    await stack.stop();
    await folder.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
