import { atLeast, roleForLabel } from '../../domain/roles';
import { getAccountSettings } from '../../features/accounts/accounts';
import { forbidden } from '../management-errors';
import type { HandlerInput } from '../route';

/**
 * Labels an account protects need admins; the rest editors: to move or remove one, to ask for that (a change
 * request), and to approve or reject a request of it. Whether the label needs a request is not the door's to say:
 * the operation decides it, inside the change (lambda/features/change-requests/approval-gate.ts).
 */
export async function requireLabelRole(
  { table, member }: Pick<HandlerInput, 'table' | 'member'>,
  { accountId, label }: { readonly accountId: string; readonly label: string },
  doing = 'moving or removing it',
): Promise<void> {
  const settings = await getAccountSettings(table, accountId);
  const needed = roleForLabel(label, settings.protectedLabels);
  if (!member || !atLeast(member.role, needed)) {
    throw forbidden(`label ${label} is protected in this account: ${doing} needs ${needed}`);
  }
}
