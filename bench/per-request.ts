import type { RequestLogRecord } from '../lambda/read-api/middleware/request-telemetry';
import { median } from './bundles';
import type { CountingStore } from './counting-store';
import type { ServiceLogTally } from './service-log-lines';

/** One kind of request, sent one at a time, as a warm function serves them: one invocation per environment at once. */
export interface Probe {
  readonly name: string;
  readonly url: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
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
  /** The function's own time (first middleware to answer), as its log line reports it: the median. */
  readonly durationMs: number;
  /**
   * That time rounded up to the millisecond, as Lambda bills each invocation: the median, as other work on
   * the shared machine stalls single requests by tens of milliseconds, which no Lambda would.
   */
  readonly billedMs: number;
}

export interface PerRequestMeter {
  /** Hand it to the local stack: each request's record, with the function's own latency. */
  readonly observe: (record: RequestLogRecord) => void;
  measure(probe: Probe): Promise<PerRequest>;
}

/** Until the store has served nothing for a second: requests queued by a load run before are all done. */
async function quiet(store: CountingStore): Promise<void> {
  let served = (await store.usage()).requests;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = (await store.usage()).requests;
    if (now === served) return;
    served = now;
  }
}

export function perRequestMeter(store: CountingStore, logLines: () => ServiceLogTally): PerRequestMeter {
  const records: RequestLogRecord[] = [];
  const send = async (probe: Probe): Promise<number> => {
    const response = await fetch(probe.url, { method: probe.method ?? 'GET', headers: probe.headers, body: probe.body });
    await response.arrayBuffer();
    return response.status;
  };
  return {
    observe: (record) => records.push(record),
    async measure(probe) {
      // Once first, so caches and connections are warm, as in a warm function.
      await send(probe);
      await quiet(store);
      const total = { requests: 0, logLines: 0, logBytes: 0, storeOps: 0, readUnits: 0, writeUnits: 0 };
      const durations: number[] = [];
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
        durations.push(latencyMs);
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
        durationMs: median(durations),
        billedMs: median(durations.map((ms) => Math.max(1, Math.ceil(ms)))),
      };
    },
  };
}
