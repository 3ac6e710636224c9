import { startModelStandIn } from '../local/model-stand-in/server';

/**
 * The local stand-in model in a process of its own, as a model is a service of its own: its work is not charged
 * to the process whose overhead is measured. Reports its URL to the parent, and stops when the parent goes.
 */
startModelStandIn().then(
  (standIn) => {
    process.send?.({ url: standIn.url });
    process.on('disconnect', () => {
      void standIn.close().then(() => process.exit(0));
    });
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
