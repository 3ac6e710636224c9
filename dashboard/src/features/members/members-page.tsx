import { useState } from 'preact/hooks';
import type { AddedMember } from '../../api/types';
import { useId, useLoad } from '../../components/hooks';
import { Button, CopyButton, DeniedNote, ErrorNote, Loading, PageTitle } from '../../components/ui';
import { denial, ROLE_SUMMARY, ROLES } from '../../logic/roles';
import { useWorkspace } from '../../workspace';
import { LeaveAccount } from './leave-account';
import { MemberRow } from './member-row';
import { AddMember } from './add-member';

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
