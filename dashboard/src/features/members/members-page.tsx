import { useState } from 'preact/hooks';
import type { AddedMember, Member } from '../../api/types';
import { useAction, useId, useLoad } from '../../components/hooks';
import { ConfirmDialog } from '../../components/dialog';
import { Button, Control, CopyButton, DeniedNote, ErrorNote, isFieldProblem, Loading, PageTitle, When } from '../../components/ui';
import { assignableRoles, denial, memberDenial, ROLE_SUMMARY, ROLES, type Role } from '../../logic/roles';
import { useWorkspace } from '../../workspace';

/** Who is in the account, with which role; adding people by email, changing roles, removing people. */
export function MembersPage() {
  const { api, account, role } = useWorkspace();
  const members = useLoad(() => api.members(account.accountId), [api, account.accountId]);
  const [added, setAdded] = useState<AddedMember | undefined>(undefined);
  const denied = denial(role, 'manage members');
  const deniedId = useId('members-denied');
  return (
    <>
      <PageTitle>Members</PageTitle>
      <ul class="muted role-list">
        {ROLES.map((r) => (
          <li key={r}>
            <strong>{r}</strong>: {ROLE_SUMMARY[r]}
          </li>
        ))}
      </ul>
      <DeniedNote id={deniedId} reason={denied} />
      <AddMember
        denied={denied}
        deniedId={deniedId}
        onAdded={(result) => {
          setAdded(result);
          members.reload();
        }}
      />
      {added?.temporaryPassword ? (
        <section class="card secret" aria-labelledby="temporary-title">
          <h2 id="temporary-title">Temporary password for {added.member.email}</h2>
          <p>
            Give it to them yourself: this stack sends no invitation email, and this is the only time it is shown. They choose their own password when they
            first sign in.
          </p>
          <div class="field copy-row">
            <label>
              <span class="label">Temporary password</span>
              <input class="mono" readOnly value={added.temporaryPassword} />
            </label>
            <CopyButton text={added.temporaryPassword} label="Copy temporary password" />
          </div>
          <Button onClick={() => setAdded(undefined)}>I have passed it on</Button>
        </section>
      ) : added ? (
        <p role="status" class="notice">
          {added.member.email} is now {added.member.role} of this account.
        </p>
      ) : null}
      <section aria-labelledby="member-list-title">
        <h2 id="member-list-title">People in {account.name}</h2>
        {members.loading && !members.data ? <Loading what="members" /> : null}
        <ErrorNote problem={members.problem} doing="Reading the members" />
        {members.data ? (
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Added</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {members.data.map((member) => (
                <MemberRow key={member.userId} member={member} onChanged={members.reload} />
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
      <LeaveAccount />
    </>
  );
}

/** Anyone may leave an account, whatever their role; an account keeps at least one owner (the API says so, 409). */
function LeaveAccount() {
  const { api, account, me } = useWorkspace();
  const [confirming, setConfirming] = useState(false);
  const leave = useAction(async () => {
    await api.removeMember(account.accountId, me.userId);
    // Their accounts changed: the dashboard starts again from its first page.
    location.assign('#/');
    location.reload();
  });
  return (
    <section aria-labelledby="leave-title" class="card danger-zone">
      <h2 id="leave-title">Leave {account.name}</h2>
      <p>You lose access from your next request. An owner or an admin can add you again.</p>
      <Button kind="danger" onClick={() => setConfirming(true)}>
        Leave this account
      </Button>
      <ConfirmDialog
        open={confirming}
        title={`Leave ${account.name}?`}
        confirmText="Yes, leave"
        busy={leave.busy}
        problem={leave.problem}
        doing="Leaving the account"
        onConfirm={() => void leave.run()}
        onCancel={() => {
          setConfirming(false);
          leave.clear();
        }}
      >
        <p>You will no longer see its prompts, keys or members.</p>
      </ConfirmDialog>
    </section>
  );
}

function MemberRow({ member, onChanged }: { member: Member; onChanged(): void }) {
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

function AddMember({ denied, deniedId, onAdded }: { denied: string | undefined; deniedId: string; onAdded(added: AddedMember): void }) {
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
