import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { listenOnLoopback } from './listen';
import { FOREIGN_REQUEST_MESSAGE, guardServer } from './loopback-guard';

// Neither dynalite nor level ship types; these are the parts we use. level is dynalite's own storage.
interface DynaliteOptions {
  path: string;
  createTableMs: number;
  deleteTableMs: number;
  updateTableMs: number;
}
const dynalite = require('dynalite') as (options: DynaliteOptions) => Server;
const { Level } = require('level') as {
  Level: new (path: string) => { open(): Promise<void>; close(): Promise<void> };
};

export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  constructor(readonly dataDir: string) {
    super(`DATA_DIR ${dataDir} is in use by another process (is the local stack already running?): stop it or set DATA_DIR`);
  }
}

export interface EmbeddedStore {
  readonly endpoint: string;
  close(): Promise<void>;
}

/**
 * dynalite, a DynamoDB-compatible server, keeping its data in LevelDB under `dataDir` so it survives
 * restarts. Tables become ACTIVE at once: nothing here is provisioned. It answers this machine's programs
 * only (loopback-guard.ts): a request from a web page, or for another host name, is refused.
 */
export async function startEmbeddedStore(options: {
  dataDir: string;
  port: number;
  /** The stack's other configured ports, never suggested when `port` is taken. */
  reservedPorts?: readonly number[];
}): Promise<EmbeddedStore> {
  await mkdir(options.dataDir, { recursive: true });
  await assertDataDirFree(options.dataDir);
  const server = dynalite({ path: options.dataDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  let port: number;
  try {
    port = await listenOnLoopback(server, options.port, 'DYNAMODB_PORT', { reserved: options.reservedPorts ?? [] });
  } catch (error) {
    // Let go of the data folder: dynalite opened it on creation.
    await closeServer(server).catch(() => undefined);
    throw error;
  }
  // Any web page could otherwise write to it: dynalite accepts any signature and answers CORS for every origin.
  guardServer(server, (response, reason) => {
    const body = JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', message: FOREIGN_REQUEST_MESSAGE[reason] });
    response.writeHead(403, { 'Content-Type': 'application/x-amz-json-1.0', 'Content-Length': Buffer.byteLength(body) });
    response.end(body);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  await writeStoreRecord(options.dataDir, { endpoint, pid: process.pid });
  return {
    endpoint,
    close: async () => {
      await rm(join(options.dataDir, STORE_RECORD), { force: true });
      await closeServer(server);
    },
  };
}

/**
 * Whoever holds DATA_DIR writes down where its store listens, so another process finding the folder
 * locked (`npm run invoke` beside `npm start`) can use that store instead of guessing DYNAMODB_PORT.
 * LevelDB leaves files it does not know alone.
 */
const STORE_RECORD = 'store-endpoint.json';

interface StoreRecord {
  readonly endpoint: string;
  readonly pid: number;
}

async function writeStoreRecord(dataDir: string, record: StoreRecord): Promise<void> {
  await writeFile(join(dataDir, STORE_RECORD), `${JSON.stringify(record)}\n`);
}

/**
 * The endpoint of the store that holds `dataDir`, as its process recorded it; undefined when there is no
 * record, or it was left by a process that is gone (killed before it could remove it).
 */
export async function recordedStoreEndpoint(dataDir: string): Promise<string | undefined> {
  let record: Partial<StoreRecord>;
  try {
    record = JSON.parse(await readFile(join(dataDir, STORE_RECORD), 'utf8')) as Partial<StoreRecord>;
  } catch {
    return undefined;
  }
  if (typeof record.endpoint !== 'string' || typeof record.pid !== 'number' || !isRunning(record.pid)) return undefined;
  return record.endpoint;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * LevelDB allows one process per folder, and dynalite would wait on a held lock forever, so look
 * first. Another process could take it between this look and dynalite's open; that race only ever
 * involves two local stacks started at the same instant.
 */
async function assertDataDirFree(dataDir: string): Promise<void> {
  const db = new Level(dataDir);
  try {
    await db.open();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') throw new DataDirInUseError(dataDir);
    throw error;
  }
  await db.close();
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
