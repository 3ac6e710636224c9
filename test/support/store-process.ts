import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

const SERVER_SCRIPT = join(__dirname, 'dynalite-server.js');

/** A store the test controls as an operating system does: by signals to its process. */
export interface StoreProcess {
  readonly endpoint: string;
  readonly pid: number;
  /** SIGSTOP: the process holds its connections and answers nothing until continued. */
  stop(): void;
  /** SIGCONT */
  resume(): void;
  /** SIGKILL, waiting for the exit: connections are refused from then on. */
  kill(): Promise<void>;
  /** A new process on the same port and data folder. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startStoreProcess(dataDir: string): Promise<StoreProcess> {
  let child = await spawnStore('0', dataDir);
  const port = child.port;
  const handle: StoreProcess = {
    endpoint: `http://127.0.0.1:${port}`,
    get pid() {
      return child.process.pid ?? -1;
    },
    stop: () => child.process.kill('SIGSTOP'),
    resume: () => child.process.kill('SIGCONT'),
    kill: async () => {
      if (child.process.exitCode !== null || child.process.signalCode !== null) return;
      const exited = once(child.process, 'exit');
      child.process.kill('SIGKILL');
      await exited;
    },
    restart: async () => {
      await handle.kill();
      child = await spawnStore(String(port), dataDir);
    },
    close: async () => {
      child.process.kill('SIGCONT');
      await handle.kill();
    },
  };
  return handle;
}

async function spawnStore(port: string, dataDir: string): Promise<{ process: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [SERVER_SCRIPT, port, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await Promise.race([
    once(child.stdout, 'data'),
    once(child, 'exit').then(() => {
      throw new Error('the store process exited before listening');
    }),
  ])) as [Buffer];
  return { process: child, port: Number(line.toString().trim()) };
}
