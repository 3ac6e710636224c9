import { createHash, randomInt } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PromptData } from '../../../client/src/index';
import { bucketOf } from '../../../lambda/domain/rollout-bucket';

/** One request the fake answered. */
export interface Seen {
  readonly path: string;
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  readonly status: number;
}

interface Rollout {
  rolloutId: string;
  percent: number;
  to: string;
}

/**
 * A local HTTP server (loopback only) that answers the read API's prompt reads as docs/rollouts.md says:
 * at a label that rolls out, the side the `X-Prompt-Subject`'s bucket picks (the server's own bucketOf),
 * `X-Prompt-Rollout` and `rollout: {rolloutId, percent, from, to}` in the body; strong ETags and 304.
 */
export class RolloutApi {
  readonly seen: Seen[] = [];
  /** promptId -> version -> body */
  readonly #versions = new Map<string, Map<string, PromptData>>();
  /** `promptId label` -> version */
  readonly #labels = new Map<string, string>();
  readonly #rollouts = new Map<string, Rollout>();
  #server: Server | undefined;
  #down = false;
  /** While set, pinned version reads answer 503: a side cannot be had. */
  versionsFail = false;

  async start(): Promise<this> {
    this.#server = createServer((request, response) => {
      if (this.#down) {
        request.socket.destroy();
        return;
      }
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const [status, headers, body] = this.#answer(url, request.headers);
      this.seen.push({ path: url.pathname, query: url.search.slice(1), headers: request.headers, status });
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(body);
    });
    await new Promise<void>((listening) => this.#server?.listen(0, '127.0.0.1', listening));
    return this;
  }

  get url(): string {
    const address = this.#server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  /** From now on every connection is dropped: an outage. */
  goDown(): void {
    this.#down = true;
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((closed) => this.#server?.close(closed));
  }

  add(promptId: string, versions: readonly string[], labels: Record<string, string> = {}): void {
    const held = new Map(versions.map((version) => [version, body(promptId, version)] as const));
    this.#versions.set(promptId, held);
    for (const [label, version] of Object.entries(labels)) this.#labels.set(`${promptId} ${label}`, version);
  }

  rollOut(promptId: string, label: string, rollout: Rollout): void {
    this.#rollouts.set(`${promptId} ${label}`, rollout);
  }

  #answer(url: URL, headers: IncomingHttpHeaders): [number, Record<string, string>, string] {
    const label = url.searchParams.get('label');
    const version = url.searchParams.get('version');
    const subject = typeof headers['x-prompt-subject'] === 'string' ? headers['x-prompt-subject'] : undefined;
    if (url.pathname === '/prompts') {
      const rolling: string[] = [];
      const listed = [...this.#versions.keys()]
        .sort()
        .map((promptId) => (label === null ? this.#latest(promptId) : this.#atLabel(promptId, label, subject, rolling)))
        .filter((prompt) => prompt !== undefined);
      return ok(listed, headers, rolling.length === 1 ? { 'x-prompt-rollout': rolling[0] ?? '' } : {});
    }
    const promptId = decodeURIComponent(url.pathname.slice('/prompts/'.length));
    const versions = this.#versions.get(promptId);
    if (!versions) return [404, {}, JSON.stringify({ error: 'not found', code: 'NOT_FOUND' })];
    if (version !== null && this.versionsFail) return [503, {}, JSON.stringify({ error: 'unavailable', code: 'SERVICE_UNAVAILABLE' })];
    if (version !== null) {
      const found = versions.get(version);
      return found ? ok(found, headers, {}) : [404, {}, JSON.stringify({ error: 'no such version', code: 'VERSION_NOT_FOUND' })];
    }
    if (label === null) return ok(this.#latest(promptId), headers, {});
    const rolling: string[] = [];
    const found = this.#atLabel(promptId, label, subject, rolling);
    if (!found) return [404, {}, JSON.stringify({ error: 'no such label', code: 'LABEL_NOT_FOUND' })];
    return ok(found, headers, rolling[0] === undefined ? {} : { 'x-prompt-rollout': rolling[0] });
  }

  #latest(promptId: string): PromptData | undefined {
    const versions = [...(this.#versions.get(promptId)?.values() ?? [])];
    return versions.sort((a, b) => a.version.localeCompare(b.version, 'en', { numeric: true })).at(-1);
  }

  #atLabel(promptId: string, label: string, subject: string | undefined, rolling: string[]): object | undefined {
    const from = this.#labels.get(`${promptId} ${label}`);
    const versions = this.#versions.get(promptId);
    if (from === undefined || !versions) return undefined;
    const rollout = this.#rollouts.get(`${promptId} ${label}`);
    if (!rollout) return versions.get(from);
    const bucket = subject === undefined ? randomInt(10_000) / 100 : bucketOf(rollout.rolloutId, subject);
    const served = bucket < rollout.percent ? rollout.to : from;
    rolling.push(rollout.rolloutId);
    return { ...versions.get(served), rollout: { rolloutId: rollout.rolloutId, percent: rollout.percent, from, to: rollout.to } };
  }
}

export function body(promptId: string, version: string): PromptData {
  return {
    promptId,
    promptName: promptId,
    version,
    systemMessage: 'System',
    userMessage: `Hello \${name}, this is ${version}`,
    config: { model: 'm', temperature: 0.5, schema: [], inputData: null, inputDataRootName: null },
  };
}

function ok(value: unknown, headers: IncomingHttpHeaders, extra: Record<string, string>): [number, Record<string, string>, string] {
  const text = JSON.stringify(value);
  const etag = `"${createHash('sha256').update(text).digest('hex').slice(0, 27)}"`;
  if (headers['if-none-match'] === etag) return [304, { etag, ...extra }, ''];
  return [200, { etag, ...extra }, text];
}
