import type { RequestLogRecord } from '../lambda/middleware/request-telemetry';
import type { CountingStore } from './counting-store';
import type { ServiceLogTally } from './service-log-lines';

/** One kind of request, sent one at a time, as a warm function serves them: one invocation per environment at once. */
export interface Probe {
  readonly name: string;
  readonly url: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly count: number;
}

/** What one request of a probe costs, averaged over its requests. */
export interface PerRequest {
  readonly name: string;
  readonly status: number;
  readonly logLines: number;
  readonly logBytes: number;
  readonly storeOps: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  /** The function's own time (first middleware to answer), as its log line reports it. */
  readonly durationMs: number;
  /** Each invocation's duration rounded up to the millisecond, as Lambda bills it. */
  readonly billedMs: number;
}

export interface PerRequestMeter {
  /** Hand it to the local stack: each request's record, with the function's own latency. */
  readonly observe: (record: RequestLogRecord) => void;
  measure(probe: Probe): Promise<PerRequest>;
}

export function perRequestMeter(store: CountingStore, logLines: () => ServiceLogTally): PerRequestMeter {
  const records: RequestLogRecord[] = [];
  const send = async (probe: Probe): Promise<number> => {
    const response = await fetch(probe.url, { method: probe.method ?? 'GET', headers: probe.headers });
    await response.arrayBuffer();
    return response.status;
  };
  return {
    observe: (record) => records.push(record),
    async measure(probe) {
      // Once first, so caches and connections are warm, as in a warm function.
      await send(probe);
      const usageBefore = await store.usage();
      const logsBefore = logLines();
      const from = records.length;
      const statuses = new Set<number>();
      for (let i = 0; i < probe.count; i += 1) statuses.add(await send(probe));
      const usage = await store.usage();
      const logs = logLines();
      const served = records.slice(from);
      if (served.length !== probe.count) throw new Error(`${probe.name}: ${served.length} requests logged, ${probe.count} sent`);
      if (statuses.size !== 1) throw new Error(`${probe.name}: answered ${[...statuses].join(', ')}`);
      const per = (total: number) => total / probe.count;
      return {
        name: probe.name,
        status: [...statuses][0] ?? 0,
        logLines: per(logs.lines - logsBefore.lines),
        logBytes: per(logs.bytes - logsBefore.bytes),
        storeOps: per(usage.requests - usageBefore.requests),
        readUnits: per(usage.readUnits - usageBefore.readUnits),
        writeUnits: per(usage.writeUnits - usageBefore.writeUnits),
        durationMs: per(served.reduce((sum, record) => sum + record.latencyMs, 0)),
        billedMs: per(served.reduce((sum, record) => sum + Math.max(1, Math.ceil(record.latencyMs)), 0)),
      };
    },
  };
}
