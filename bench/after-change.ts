import type { CountingStore } from './counting-store';

/** One route, with the key that reads it. */
export interface ChangeProbe {
  readonly name: string;
  readonly url: string;
  readonly apiKey: string;
  readonly accountId: string;
  /** Each request names a new subject (`X-Prompt-Subject`), as reads at a rolling-out label do. */
  readonly subjects?: boolean;
}

/** Store round trips per request of one route: warm, and the first request after a change. */
export interface AfterChange {
  readonly name: string;
  readonly warm: number;
  readonly afterChange: number;
}

const REQUESTS = 5;

/**
 * Each route on its own, one request at a time: `REQUESTS` warm requests, then `REQUESTS` times a change
 * (`change`, which raises the account's prompt revision as any publish, label move or delete does) and
 * the one request right after it. Only the request's own round trips are counted, not the change's.
 */
export async function measureAfterChange(
  store: CountingStore,
  probes: readonly ChangeProbe[],
  change: (accountId: string) => Promise<void>,
): Promise<AfterChange[]> {
  const results: AfterChange[] = [];
  for (const probe of probes) {
    let subject = 0;
    const send = async () => {
      const before = (await store.usage()).requests;
      subject += 1;
      const headers: Record<string, string> = { authorization: `Bearer ${probe.apiKey}` };
      if (probe.subjects) headers['x-prompt-subject'] = `user-${subject}`;
      const response = await fetch(probe.url, { headers });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${probe.name}: ${response.status}`);
      return (await store.usage()).requests - before;
    };
    await send();
    await send();
    let warm = 0;
    for (let i = 0; i < REQUESTS; i += 1) warm += await send();
    let afterChange = 0;
    for (let i = 0; i < REQUESTS; i += 1) {
      await change(probe.accountId);
      afterChange += await send();
    }
    results.push({ name: probe.name, warm: warm / REQUESTS, afterChange: afterChange / REQUESTS });
  }
  return results;
}
