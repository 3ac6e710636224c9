import { useState } from 'preact/hooks';
import type { AddedMember } from '../../api/types';
import { useAction } from '../../components/hooks';
import { Button, Control, ErrorNote, isFieldProblem } from '../../components/ui';
import { assignableRoles, ROLES, type Role } from '../../logic/roles';
import { useWorkspace } from '../../workspace';

/** Adding a person by email, with a role the caller may hand out. */
export function AddMember({ denied, deniedId, onAdded }: { denied: string | undefined; deniedId: string; onAdded(added: AddedMember): void }) {
  const { api, account, role } = useWorkspace();
  const [email, setEmail] = useState('');
  const roles = denied ? ROLES.filter((r) => r !== 'owner') : assignableRoles(role);
  const [newRole, setNewRole] = useState<Role>('viewer');
  const add = useAction(async () => {
    const added = await api.addMember(account.accountId, email.trim(), newRole);
    setEmail('');
    onAdded(added);
  });
  return (
    <section class="card" aria-labelledby="add-member-title">
      <h2 id="add-member-title">Add a person</h2>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void add.run();
        }}
      >
        <Control label="Email" problem={add.problem} field="email" describedBy={denied ? deniedId : undefined}>
          {(control) => (
            <input {...control} type="email" value={email} required disabled={denied !== undefined} onInput={(event) => setEmail(event.currentTarget.value)} />
          )}
        </Control>
        <Control label="Role for the new member">
          {(control) => (
            <select {...control} value={newRole} disabled={denied !== undefined} onChange={(event) => setNewRole(event.currentTarget.value as Role)}>
              {roles.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          )}
        </Control>
        <Button type="submit" kind="primary" busy={add.busy} busyText="Adding…" denied={denied} deniedId={deniedId}>
          Add member
        </Button>
      </form>
      {isFieldProblem(add.problem, ['email']) ? null : <ErrorNote problem={add.problem} doing="Adding the member" />}
    </section>
  );
}
