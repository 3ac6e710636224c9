import { fork } from 'node:child_process';
import { join } from 'node:path';

export interface CountingStore {
  readonly endpoint: string;
  /** Requests the store has served so far: each one is a store round trip, whichever client made it. */
  requests(): Promise<number>;
  close(): Promise<void>;
}

type StoreMessage = { port: number } | { requests: number };

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
    requests: async () => {
      const answer = next();
      child.send('count');
      const message = await answer;
      return 'requests' in message ? message.requests : Number.NaN;
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
