/**
 * The embedded store as `npm start` runs it (local/embedded-store.ts: dynalite on LevelDB under a folder,
 * behind the loopback guard), alone in a process of its own, for `npm run soak`'s store route. Run with
 * `--expose-gc`. Argument: the data folder. Sends `{ endpoint }` once it listens; then answers each
 * `{ gc }` message with its `process.memoryUsage()`, taken after full collections when `gc` is true, so
 * the JS heap (heapUsed) can be told from memory outside it (RSS).
 */
import { startEmbeddedStore } from '../local/embedded-store';

export interface StoreMemory {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
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
    process.send?.({ rss, heapUsed, external } satisfies StoreMemory);
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
