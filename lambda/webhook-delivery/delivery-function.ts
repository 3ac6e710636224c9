import { createDeliveryHandler } from './delivery-handler';
import { deliveryDependencies } from './delivery-runtime';

/** Lambda entry point: WebhookDelivery (lib/event-delivery.ts), invoked by the delivery queue with delivery jobs. */
export const handler = createDeliveryHandler(deliveryDependencies());
