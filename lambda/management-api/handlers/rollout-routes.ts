import { defineRoute, type ManagementRoute } from '../route';
import { RolloutAbortBody, RolloutChangeBody, RolloutCompleteBody, RolloutStartBody } from '../schemas';
import { requireLabelRole } from './label-access';

/**
 * A label's rollout (docs/rollouts.md "Managing a rollout (management API)"): started, read, its share changed,
 * completed or aborted, each of the last three for the rollout its body names (`rolloutId`), when it names one.
 * Whoever may move the label may run its rollout (protected labels: admins); reading it is any member's.
 */

const ROLLOUT = '/api/accounts/{accountId}/prompts/{promptId}/labels/{label}/rollout';

export const rolloutRoutes: readonly ManagementRoute[] = [
  defineRoute({
    method: 'PUT',
    path: ROLLOUT,
    access: 'move labels',
    action: 'rollout.start',
    body: RolloutStartBody,
    async handle(request) {
      await requireLabelRole(request, request.params, 'rolling it out');
      const { accountId, promptId, label } = request.params;
      const started = await request.ops.rollouts.start(accountId, promptId, label, request.body);
      // A label under approval is asked for: the request carries the rollout, and its approval starts it.
      return 'changeRequest' in started ? { status: 202, body: { request: started.changeRequest } } : { status: 201, body: { rollout: started.rollout } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: ROLLOUT,
    access: 'read the account',
    async handle(request) {
      const { accountId, promptId, label } = request.params;
      return { status: 200, body: { rollout: await request.ops.rollouts.read(accountId, promptId, label) } };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: ROLLOUT,
    access: 'move labels',
    action: 'rollout.change',
    body: RolloutChangeBody,
    async handle(request) {
      await requireLabelRole(request, request.params, 'changing its rollout');
      const { accountId, promptId, label } = request.params;
      return { status: 200, body: { rollout: await request.ops.rollouts.change(accountId, promptId, label, request.body) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: `${ROLLOUT}/complete`,
    access: 'move labels',
    action: 'rollout.complete',
    body: RolloutCompleteBody,
    bodyOptional: true,
    async handle(request) {
      await requireLabelRole(request, request.params, 'completing its rollout');
      const { accountId, promptId, label } = request.params;
      return { status: 200, body: { rollout: await request.ops.rollouts.complete(accountId, promptId, label, request.body) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: `${ROLLOUT}/abort`,
    access: 'move labels',
    action: 'rollout.abort',
    body: RolloutAbortBody,
    bodyOptional: true,
    async handle(request) {
      await requireLabelRole(request, request.params, 'aborting its rollout');
      const { accountId, promptId, label } = request.params;
      return { status: 200, body: { rollout: await request.ops.rollouts.abort(accountId, promptId, label, request.body) } };
    },
  }),
];
