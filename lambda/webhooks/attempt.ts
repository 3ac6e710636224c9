import type { Table } from '../table/table';
import type { AttemptOutcome, DeliveryJob } from './delivery-job';
import type { SecretSealer } from './secret-sealer';

/* A stand-in with the delivery engine's names (branch ev-delivery); the merge takes ev-delivery's file. */

export interface AttemptDependencies {
  readonly table: Table;
  readonly sealer: SecretSealer;
  readonly allowLoopback?: boolean;
}

export async function attemptDelivery(_job: DeliveryJob, _deps: AttemptDependencies): Promise<AttemptOutcome> {
  return { delivered: false, status: null, durationMs: 0, error: 'not built yet', final: true };
}
