import { useEffect, useRef, useState } from 'preact/hooks';
import type { AccountSettings } from '../../api/types';
import { useAction, useId } from '../../components/hooks';
import { Button, Control, DeniedNote, ErrorNote, isFieldProblem, Loading, PageTitle } from '../../components/ui';
import { approvalLabelsFromText, approvalSettingsProblem } from './approval-settings';
import { ModelBudgetForm } from './model-budget';
import { denial } from '../../logic/roles';
import { useWorkspace } from '../../workspace';

/** The account's settings: its name, plan and protected labels, and which labels move only after approval (owners change them). */
export function SettingsPage() {
  const { settings, account } = useWorkspace();
  return (
    <>
      <PageTitle>Settings</PageTitle>
      {settings ? (
        <>
          <dl class="config">
            <dt>Account</dt>
            <dd>
              {settings.name} <span class="muted mono">({account.accountId})</span>
            </dd>
            <dt>Plan</dt>
            <dd>{settings.plan}</dd>
            <dt>Protected labels</dt>
            <dd>{settings.protectedLabels.length === 0 ? 'none' : settings.protectedLabels.join(', ')} (moved by admins and owners only)</dd>
          </dl>
          <ApprovalsForm settings={settings} />
          <ModelBudgetForm settings={settings} />
        </>
      ) : (
        <Loading what="the settings" />
      )}
    </>
  );
}

const REQUIRED_CHOICES = [1, 2, 3, 4, 5] as const;

function ApprovalsForm({ settings }: { settings: AccountSettings }) {
  const { api, account, role, announce, refreshAccount } = useWorkspace();
  const savedLabels = (settings.approvals?.labels ?? []).join(', ');
  const savedRequired = settings.approvals?.required ?? 1;
  const [labels, setLabels] = useState(savedLabels);
  const [required, setRequired] = useState(savedRequired);
  const [checked, setChecked] = useState<ReturnType<typeof approvalSettingsProblem>>(undefined);
  // Settings read again with other values (a save, another owner's change) show in the form; the same values leave what is typed alone.
  const seen = useRef({ labels: savedLabels, required: savedRequired });
  useEffect(() => {
    if (seen.current.labels === savedLabels && seen.current.required === savedRequired) return;
    seen.current = { labels: savedLabels, required: savedRequired };
    setLabels(savedLabels);
    setRequired(savedRequired);
  }, [savedLabels, savedRequired]);
  const denied = denial(role, 'change account settings');
  const deniedId = useId('settings-denied');
  const labelsError = useId('approval-labels-error');
  const save = useAction(async () => {
    await api.updateAccount(account.accountId, { approvals: { labels: approvalLabelsFromText(labels), required } });
    announce('Approval settings saved.');
    refreshAccount();
  });
  const unchanged = approvalLabelsFromText(labels).join(',') === approvalLabelsFromText(savedLabels).join(',') && required === savedRequired;
  const covered = approvalLabelsFromText(savedLabels);
  return (
    <section aria-labelledby="approvals-settings-title" class="card">
      <h2 id="approvals-settings-title">Approvals</h2>
      <p>
        {covered.length === 0
          ? 'No label needs approval now: whoever may move a label moves it at once.'
          : `Now: a move of ${covered.join(', ')} opens a change request, and happens once ${savedRequired === 1 ? 'one other person approves' : `${savedRequired} other people approve`} it.`}{' '}
        Only those who may move a label approve its moves, never the person who asked.
      </p>
      <DeniedNote id={deniedId} reason={denied} />
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          const problem = approvalSettingsProblem(approvalLabelsFromText(labels), required);
          setChecked(problem);
          if (!problem) void save.run();
        }}
      >
        <Control
          label="Labels that need approval"
          hint="Separated by commas, e.g. production. Empty: none."
          problem={save.problem}
          field="approvals.labels"
          describedBy={[checked?.field === 'labels' ? labelsError : '', denied ? deniedId : ''].filter(Boolean).join(' ')}
        >
          {(control) => (
            <input
              {...control}
              value={labels}
              size={30}
              disabled={denied !== undefined}
              aria-invalid={checked?.field === 'labels' ? 'true' : undefined}
              onInput={(event) => setLabels(event.currentTarget.value)}
            />
          )}
        </Control>
        <Control label="Approvals needed" problem={save.problem} field="approvals.required" describedBy={denied ? deniedId : undefined}>
          {(control) => (
            <select {...control} value={String(required)} disabled={denied !== undefined} onChange={(event) => setRequired(Number(event.currentTarget.value))}>
              {REQUIRED_CHOICES.map((count) => (
                <option key={count} value={String(count)}>
                  {count}
                </option>
              ))}
            </select>
          )}
        </Control>
        <Button type="submit" kind="primary" busy={save.busy} busyText="Saving…" denied={denied} deniedId={deniedId} disabled={unchanged}>
          Save approvals
        </Button>
      </form>
      {checked ? (
        <p class="field-error" id={labelsError} role="alert">
          {checked.message}
        </p>
      ) : null}
      {isFieldProblem(save.problem, ['approvals']) ? null : <ErrorNote problem={save.problem} doing="Saving the approval settings" />}
    </section>
  );
}
