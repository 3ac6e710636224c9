import * as z from 'zod';
import { EVENT_TYPES } from '../domain/events';
import { DELIVERY_ID_PATTERN } from '../table/deliveries';
import { type DeliveryJob, MAX_ATTEMPTS } from './delivery-job';

const actor = z.union([
  z.object({ type: z.literal('user'), email: z.string() }),
  z.object({ type: z.literal('cli'), operator: z.string() }),
  z.object({ type: z.literal('system'), name: z.string() }),
]);

/** An attempt already made, whose line is still to be written (delivery-job.ts MadeAttempt). */
const madeAttempt = z.object({
  delivered: z.boolean(),
  status: z.number().int().nullable(),
  durationMs: z.number().min(0),
  error: z.string().optional(),
  final: z.boolean().optional(),
  at: z.iso.datetime(),
  deliveryId: z.string().regex(DELIVERY_ID_PATTERN),
});

const deliveryJob = z.object({
  accountId: z.string().min(1),
  webhookId: z.string().min(1),
  attempt: z.number().int().min(1).max(MAX_ATTEMPTS),
  dueAt: z.iso.datetime().optional(),
  made: madeAttempt.optional(),
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

/** A delivery queue message's body: the job as the dispatcher or the run before it queued it, or why it is not one. */
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
