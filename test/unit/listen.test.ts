import { createServer, type Server } from 'node:net';
import { listenOnLoopback, PortInUseError } from '../../local/listen';

/** A taken port stops `npm start` with a suggestion that works: checked free, and not another setting's. */

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function hold(port: number): Promise<boolean> {
  const server = createServer();
  const held = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (held) servers.push(server);
  return held;
}

async function isFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * Two neighbouring ports, both held here (the taken one, and the one a naive suggestion would name),
 * with the port after them free.
 */
async function holdTwoNeighbours(): Promise<number> {
  for (;;) {
    const first = createServer();
    await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
    servers.push(first);
    const port = (first.address() as { port: number }).port;
    if (port < 65_534 && (await hold(port + 1)) && (await isFree(port + 2))) return port;
  }
}

async function refusal(port: number, reserved: number[] = []): Promise<PortInUseError> {
  const error = await listenOnLoopback(createServer(), port, 'PORT', { reserved }).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof PortInUseError)) throw new Error(`expected a PortInUseError, got ${String(error)}`);
  return error;
}

test('suggests a port past the taken one that it found free, skipping the next one when that is taken too', async () => {
  const port = await holdTwoNeighbours();

  const error = await refusal(port);

  expect(error.suggestion).toBeGreaterThan(port + 1);
  expect(error.message).toBe(`port ${port} is in use: set PORT to a free port (e.g. PORT=${error.suggestion})`);
  expect(await hold(error.suggestion ?? 0)).toBe(true);
});

test('never suggests a port another setting of the stack names, though it is free now', async () => {
  const port = await holdTwoNeighbours();
  const playgroundPort = port + 2;

  const error = await refusal(port, [playgroundPort]);

  expect(error.suggestion).not.toBe(playgroundPort);
  expect(error.suggestion).toBeGreaterThan(port);
});
