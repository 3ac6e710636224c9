import { useState } from 'preact/hooks';
import type { Member } from '../../api/types';
import { useAction, useId } from '../../components/hooks';
import { ConfirmDialog } from '../../components/dialog';
import { Button, DeniedNote, ErrorNote, When } from '../../components/ui';
import { assignableRoles, denial, memberDenial, ROLES, type Role } from '../../logic/roles';
import { useWorkspace } from '../../workspace';

/** One member: their role, changed by those who may (admins below owner, owners anyone), and removing them after a confirmation. */
export function MemberRow({ member, onChanged }: { member: Member; onChanged(): void }) {
  const { api, account, role, me, announce, refreshAccount } = useWorkspace();
  const [next, setNext] = useState<Role>(member.role);
  const [confirming, setConfirming] = useState(false);
  const changeDenied = memberDenial(role, member.role, next);
  const removeDenied = memberDenial(role, member.role, undefined);
  const rowDenied = memberDenial(role, member.role, member.role);
  const deniedId = useId('member-denied');
  const itsMe = member.userId === me.userId;
  const change = useAction(async () => {
    await api.setRole(account.accountId, member.userId, next);
    announce(`${member.email} is now ${next}.`);
    if (itsMe) refreshAccount();
    onChanged();
  });
  const remove = useAction(async () => {
    await api.removeMember(account.accountId, member.userId);
    setConfirming(false);
    announce(`${member.email} removed.`);
    onChanged();
  });
  const choices = role === 'owner' ? ROLES : Array.from(new Set([member.role, ...assignableRoles(role)]));
  return (
    <tr>
      <th scope="row">
        {member.email}
        {itsMe ? <span class="muted"> (you)</span> : null}
      </th>
      <td>
        <div class="inline-form">
          <label>
            <span class="visually-hidden">Role of {member.email}</span>
            <select
              value={next}
              disabled={rowDenied !== undefined}
              aria-describedby={rowDenied ? deniedId : undefined}
              onChange={(event) => setNext(event.currentTarget.value as Role)}
            >
              {choices.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <Button
            kind="primary"
            busy={change.busy}
            busyText="Changing…"
            denied={rowDenied ?? changeDenied}
            deniedId={deniedId}
            disabled={next === member.role}
            onClick={() => void change.run()}
            aria-label={`Change role of ${member.email}`}
          >
            Change role
          </Button>
        </div>
        <DeniedNote id={deniedId} reason={rowDenied && rowDenied !== denial(role, 'manage members') ? rowDenied : undefined} />
        <ErrorNote problem={change.problem} doing={`Changing the role of ${member.email}`} />
      </td>
      <td>
        <When iso={member.addedAt} />
        {member.addedBy ? <div class="muted">by {member.addedBy}</div> : null}
      </td>
      <td>
        <Button kind="danger" denied={removeDenied} deniedId={deniedId} onClick={() => setConfirming(true)} aria-label={`Remove ${member.email}`}>
          Remove
        </Button>
        <ConfirmDialog
          open={confirming}
          title={`Remove ${member.email}?`}
          confirmText="Yes, remove them"
          busy={remove.busy}
          problem={remove.problem}
          doing="Removing the member"
          onConfirm={() => void remove.run()}
          onCancel={() => {
            setConfirming(false);
            remove.clear();
          }}
        >
          <p>They lose access to {account.name} from their very next request. You can add them again later.</p>
        </ConfirmDialog>
      </td>
    </tr>
  );
}
