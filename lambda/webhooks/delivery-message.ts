import * as z from 'zod';
import { EVENT_TYPES } from '../domain/events';
import type { DeliveryJob } from './delivery-job';

const actor = z.union([
  z.object({ type: z.literal('user'), email: z.string() }),
  z.object({ type: z.literal('cli'), operator: z.string() }),
  z.object({ type: z.literal('system'), name: z.string() }),
]);

const deliveryJob = z.object({
  accountId: z.string().min(1),
  webhookId: z.string().min(1),
  attempt: z.number().int().min(1),
  event: z.object({
    id: z.string().min(1),
    type: z.enum(EVENT_TYPES),
    time: z.string(),
    accountId: z.string().min(1),
    actor,
    // Passed through as JSON.parse made it: a copy into a new object would turn a `__proto__` name of the data into a prototype.
    data: z.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'data must be an object'),
  }),
});

/** A delivery queue message's body: the job as the dispatcher queued it, or why it is not one. */
export function readDeliveryJob(body: string): { job: DeliveryJob } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { problem: 'the message body is not JSON' };
  }
  const parsed = deliveryJob.safeParse(json);
  if (!parsed.success) return { problem: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ') };
  return { job: parsed.data };
}
