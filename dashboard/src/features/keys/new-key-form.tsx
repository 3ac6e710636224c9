import { useState } from 'preact/hooks';
import type { IssuedKey } from '../../api/types';
import { useAction } from '../../components/hooks';
import { Button, Control, ErrorNote, isFieldProblem } from '../../components/ui';
import { useWorkspace } from '../../workspace';
import { ScopePicker } from './scope-picker';

/** A new key: its name, monthly limit, expiry and scope; its secret is shown once, in the panel after. */
export function NewKeyForm({
  denied,
  deniedId,
  onCreated,
}: {
  denied: string | undefined;
  deniedId: string;
  onCreated(issued: IssuedKey, promptId: string | undefined): void;
}) {
  const { api, account } = useWorkspace();
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('');
  const [scope, setScope] = useState<readonly string[]>([]);
  const [expires, setExpires] = useState('');
  const create = useAction(async () => {
    const issued = await api.createKey(account.accountId, {
      name: name.trim(),
      ...(limit.trim() === '' ? {} : { monthlyLimit: Number(limit) }),
      ...(scope.length === 0 ? {} : { scope }),
      ...(expires === '' ? {} : { expiresAt: `${expires}T23:59:59Z` }),
    });
    setName('');
    setLimit('');
    setScope([]);
    setExpires('');
    onCreated(
      issued,
      scope.find((entry) => !entry.endsWith('*')),
    );
  });
  const disabled = denied !== undefined;
  return (
    <section aria-labelledby="new-key-title" class="card">
      <h2 id="new-key-title">New key</h2>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
        <Control label="Key name" problem={create.problem} field="name" describedBy={denied ? deniedId : undefined}>
          {(control) => (
            <input {...control} value={name} required maxLength={100} disabled={disabled} onInput={(event) => setName(event.currentTarget.value)} />
          )}
        </Control>
        <Control
          label="Monthly limit"
          hint="Empty: the account plan's limit, which is also the most a key may have."
          problem={create.problem}
          field="monthlyLimit"
        >
          {(control) => (
            <input
              {...control}
              type="number"
              min={0}
              step={1}
              value={limit}
              placeholder="the plan's"
              disabled={disabled}
              onInput={(event) => setLimit(event.currentTarget.value)}
            />
          )}
        </Control>
        <Control label="Expires on" hint="At the end of that day (UTC). Empty: never." problem={create.problem} field="expiresAt">
          {(control) => <input {...control} type="date" value={expires} disabled={disabled} onInput={(event) => setExpires(event.currentTarget.value)} />}
        </Control>
        <ScopePicker scope={scope} onChange={setScope} disabled={disabled} problem={create.problem} />
        <Button type="submit" kind="primary" busy={create.busy} busyText="Creating the key…" denied={denied} deniedId={deniedId}>
          Create key
        </Button>
      </form>
      {isFieldProblem(create.problem, ['name', 'monthlyLimit', 'scope', 'expiresAt']) ? null : <ErrorNote problem={create.problem} doing="Creating the key" />}
    </section>
  );
}
