import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:net';
import { listenOnLoopback } from './listen';

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
 * restarts. Tables become ACTIVE at once: nothing here is provisioned.
 */
export async function startEmbeddedStore(options: { dataDir: string; port: number }): Promise<EmbeddedStore> {
  await mkdir(options.dataDir, { recursive: true });
  await assertDataDirFree(options.dataDir);
  const server = dynalite({ path: options.dataDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  let port: number;
  try {
    port = await listenOnLoopback(server, options.port, 'DYNAMODB_PORT');
  } catch (error) {
    // Let go of the data folder: dynalite opened it on creation.
    await closeServer(server).catch(() => undefined);
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => closeServer(server),
  };
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
