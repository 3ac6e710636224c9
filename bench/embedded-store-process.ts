/**
 * The embedded store as `npm start` runs it (local/embedded-store.ts: dynalite on LevelDB under a folder,
 * behind the loopback guard), alone in a process of its own, for `npm run soak`'s store routes. Run with
 * `--expose-gc`. Argument: the data folder. Sends `{ endpoint }` once it listens; then answers each
 * `{ gc }` message with its `process.memoryUsage()`, taken after full collections when `gc` is true, so
 * the JS heap (heapUsed) can be told from memory outside it (RSS), and with what of RSS is malloc's.
 */
import { readFileSync } from 'node:fs';
import { startEmbeddedStore } from '../local/embedded-store';

export interface StoreMemory {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  /** Resident bytes of malloc's arenas (glibc on Linux), where native code's memory is; undefined elsewhere. */
  readonly mallocArenas: number | undefined;
}

/** glibc gives each thread arena a 64 MB-aligned region of 64 MB, mapped read-write as far as it has grown. */
const ARENA_BYTES = 64n * 2n ** 20n;

/**
 * The resident size of malloc's arenas, from /proc/self/smaps: the main arena (`[heap]`) and every thread's
 * (an anonymous read-write mapping at a 64 MB boundary, the rest of its 64 MB reserved behind it). V8's heap
 * is mapped apart from them, so this is the memory of native code: LevelDB's, the addons', Node's own.
 */
function mallocArenas(): number | undefined {
  let smaps: string;
  try {
    smaps = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return undefined;
  }
  const mappings: { start: bigint; end: bigint; perms: string; name: string; rss: number }[] = [];
  for (const line of smaps.split('\n')) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const [, start = '0', end = '0', perms = '', name = ''] = mapping;
      mappings.push({ start: BigInt(`0x${start}`), end: BigInt(`0x${end}`), perms, name, rss: 0 });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    const last = mappings[mappings.length - 1];
    if (rss && last) last.rss = Number(rss[1]) * 1024;
  }
  let bytes = 0;
  mappings.forEach((mapping, i) => {
    if (mapping.name === '[heap]') bytes += mapping.rss;
    if (mapping.name !== '' || !mapping.perms.startsWith('rw') || mapping.start % ARENA_BYTES !== 0n) return;
    const rest = mappings[i + 1];
    const reservedBehind = rest?.perms === '---p' && rest.start === mapping.end && rest.end === mapping.start + ARENA_BYTES;
    if (reservedBehind || mapping.end === mapping.start + ARENA_BYTES) bytes += mapping.rss;
  });
  return bytes;
}

const collect = (globalThis as { gc?: () => void }).gc;

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir || !collect || !process.send) throw new Error('usage: fork with --expose-gc and a data folder');
  const store = await startEmbeddedStore({ dataDir, port: 0 });
  process.on('message', async (message: { gc?: boolean }) => {
    if (message.gc) {
      // Twice, a turn of the event loop apart: finalizers of native objects run after the first.
      collect();
      await new Promise((resolve) => setImmediate(resolve));
      collect();
    }
    const { rss, heapUsed, external } = process.memoryUsage();
    process.send?.({ rss, heapUsed, external, mallocArenas: message.gc ? mallocArenas() : undefined } satisfies StoreMemory);
  });
  process.on('disconnect', () => {
    void store.close().finally(() => process.exit(0));
  });
  process.send({ endpoint: store.endpoint });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
