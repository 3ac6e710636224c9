import type { EventActor } from './events';

/**
 * Who made a change: a signed-in user, an operator through the CLI, or the deployed automation of rollouts
 * (a due step applied, a guard alarm's abort: docs/rollouts.md "Steps and a guard alarm (deployed)").
 */
export type Actor = { type: 'user'; userId: string; email: string } | { type: 'cli'; operator: string } | { type: 'system'; name: SystemActorName };

/** The deployed functions that change rollouts on their own. */
export type SystemActorName = 'rollout-steps' | 'guard-alarm';

/**
 * How an actor is named on what they changed (`updatedBy`, `createdBy`, a label history's `by`): people by email,
 * operators as `cli:<who>`, the deployed automation of rollouts as `system:<name>`.
 */
export function actorName(actor: Actor): string {
  switch (actor.type) {
    case 'user':
      return actor.email;
    case 'cli':
      return `cli:${actor.operator}`;
    case 'system':
      return `system:${actor.name}`;
  }
}

/** The identity that tells approvers apart, and a change request's requester from them: a user id, or the name. */
export function actorIdentity(actor: Actor): string {
  switch (actor.type) {
    case 'user':
      return actor.userId;
    case 'cli':
      return `cli:${actor.operator}`;
    case 'system':
      return `system:${actor.name}`;
  }
}

/** Who made the change, as an event names them: a person by email only. */
export function eventActor(actor: Actor): EventActor {
  switch (actor.type) {
    case 'user':
      return { type: 'user', email: actor.email };
    case 'cli':
      return { type: 'cli', operator: actor.operator };
    case 'system':
      return { type: 'system', name: actor.name };
  }
}
