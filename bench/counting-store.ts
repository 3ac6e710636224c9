import { fork } from 'node:child_process';
import { join } from 'node:path';

/** What the store has served so far, whichever client asked. */
export interface StoreUsage {
  /** Each one a store round trip. */
  readonly requests: number;
  /** Read capacity units DynamoDB on-demand would bill for them (per 4 KB read, strongly consistent). */
  readonly readUnits: number;
  /** Write capacity units (per 1 KB written). */
  readonly writeUnits: number;
}

export interface CountingStore {
  readonly endpoint: string;
  usage(): Promise<StoreUsage>;
  close(): Promise<void>;
}

type StoreMessage = { port: number } | { usage: StoreUsage };

/**
 * An in-memory dynalite in a process of its own, as DynamoDB is a service of its own: its work is not
 * charged to the process whose throughput is measured, and every store operation is a real round trip.
 * `latencyMs` delays each request, standing for the network a deployed function crosses to DynamoDB.
 */
export async function startCountingStore(latencyMs = 0): Promise<CountingStore> {
  const child = fork(join(__dirname, 'store-process.ts'), [String(latencyMs)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // The child answers messages in order: each answer settles the oldest question.
  const waiting: Array<{ resolve: (message: StoreMessage) => void; reject: (error: Error) => void }> = [];
  child.on('message', (message) => waiting.shift()?.resolve(message as StoreMessage));
  child.on('exit', (code) => {
    for (const pending of waiting.splice(0)) pending.reject(new Error(`the store process exited (${code})`));
  });
  const next = () => new Promise<StoreMessage>((resolve, reject) => waiting.push({ resolve, reject }));
  const ready = await next();
  if (!('port' in ready)) throw new Error('the store process did not report its port');
  return {
    endpoint: `http://127.0.0.1:${ready.port}`,
    usage: async () => {
      const answer = next();
      child.send('count');
      const message = await answer;
      if (!('usage' in message)) throw new Error('the store process did not report its usage');
      return message.usage;
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
