import { defineRoute, type ManagementRoute } from '../route';
import * as contracts from './rollout-contracts';
import { requireLabelRole } from './label-access';

/**
 * A label's rollout (docs/rollouts.md "Managing a rollout (management API)"): started, read, its share changed,
 * completed or aborted, each of the last three for the rollout its body names (`rolloutId`), when it names one.
 * Whoever may move the label may run its rollout (protected labels: admins); reading it is any member's.
 */

export const rolloutRoutes: readonly ManagementRoute[] = [
  defineRoute(contracts.startRollout, {
    access: 'move labels',
    action: 'rollout.start',
    async handle(request) {
      await requireLabelRole(request, request.params, 'rolling it out');
      const { accountId, promptId, label } = request.params;
      const started = await request.ops.rollouts.start(accountId, promptId, label, request.body);
      // A label under approval is asked for: the request carries the rollout, and its approval starts it.
      return 'changeRequest' in started ? { status: 202, body: { request: started.changeRequest } } : { status: 201, body: { rollout: started.rollout } };
    },
  }),
  defineRoute(contracts.readRollout, {
    access: 'read the account',
    async handle(request) {
      const { accountId, promptId, label } = request.params;
      return { status: 200, body: { rollout: await request.ops.rollouts.read(accountId, promptId, label) } };
    },
  }),
  defineRoute(contracts.changeRollout, {
    access: 'move labels',
    action: 'rollout.change',
    async handle(request) {
      await requireLabelRole(request, request.params, 'changing its rollout');
      const { accountId, promptId, label } = request.params;
      return { status: 200, body: { rollout: await request.ops.rollouts.change(accountId, promptId, label, request.body) } };
    },
  }),
  defineRoute(contracts.completeRollout, {
    access: 'move labels',
    action: 'rollout.complete',
    async handle(request) {
      await requireLabelRole(request, request.params, 'completing its rollout');
      const { accountId, promptId, label } = request.params;
      return { status: 200, body: { rollout: await request.ops.rollouts.complete(accountId, promptId, label, request.body) } };
    },
  }),
  defineRoute(contracts.abortRollout, {
    access: 'move labels',
    action: 'rollout.abort',
    async handle(request) {
      await requireLabelRole(request, request.params, 'aborting its rollout');
      const { accountId, promptId, label } = request.params;
      return { status: 200, body: { rollout: await request.ops.rollouts.abort(accountId, promptId, label, request.body) } };
    },
  }),
];
