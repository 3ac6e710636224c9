import type { RequestLogRecord } from '../lambda/middleware/request-telemetry';
import type { CountingStore } from './counting-store';
import type { ServiceLogTally } from './service-log-lines';

/** One kind of request, sent one at a time, as a warm function serves them: one invocation per environment at once. */
export interface Probe {
  readonly name: string;
  readonly url: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** The answer measured; any other (a 503 when the shared machine stalls the store) is sent again. */
  readonly status: number;
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
      const total = { requests: 0, logLines: 0, logBytes: 0, storeOps: 0, readUnits: 0, writeUnits: 0, durationMs: 0, billedMs: 0 };
      let others = 0;
      while (total.requests < probe.count) {
        if (others > probe.count) throw new Error(`${probe.name}: ${others} answers other than ${probe.status}`);
        const usageBefore = await store.usage();
        const logsBefore = logLines();
        const from = records.length;
        const status = await send(probe);
        const usage = await store.usage();
        const logs = logLines();
        const served = records.slice(from);
        if (status !== probe.status || served.length !== 1) {
          others += 1;
          continue;
        }
        const latencyMs = served[0]?.latencyMs ?? 0;
        total.requests += 1;
        total.logLines += logs.lines - logsBefore.lines;
        total.logBytes += logs.bytes - logsBefore.bytes;
        total.storeOps += usage.requests - usageBefore.requests;
        total.readUnits += usage.readUnits - usageBefore.readUnits;
        total.writeUnits += usage.writeUnits - usageBefore.writeUnits;
        total.durationMs += latencyMs;
        total.billedMs += Math.max(1, Math.ceil(latencyMs));
      }
      if (others > 0) process.stderr.write(`${probe.name}: ${others} answers other than ${probe.status} sent again\n`);
      const per = (value: number) => value / total.requests;
      return {
        name: probe.name,
        status: probe.status,
        logLines: per(total.logLines),
        logBytes: per(total.logBytes),
        storeOps: per(total.storeOps),
        readUnits: per(total.readUnits),
        writeUnits: per(total.writeUnits),
        durationMs: per(total.durationMs),
        billedMs: per(total.billedMs),
      };
    },
  };
}
