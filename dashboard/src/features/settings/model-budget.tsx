import { useEffect, useState } from 'preact/hooks';
import type { AccountSettings } from '../../api/types';
import { useAction, useId } from '../../components/hooks';
import { Button, Control, DeniedNote, ErrorNote, isFieldProblem } from '../../components/ui';
import { denial } from '../../logic/roles';
import { useWorkspace } from '../../workspace';
import { budgetFromText, budgetInWords } from './model-budget-text';

/** The account's monthly budget of model tokens (docs/runs.md "Budget"): owners set it or take it away. */
export function ModelBudgetForm({ settings }: { settings: AccountSettings }) {
  const { api, account, role, announce, refreshAccount } = useWorkspace();
  const saved = settings.models.monthlyTokens;
  const [text, setText] = useState(saved === null ? '' : String(saved));
  const [checked, setChecked] = useState<string | undefined>(undefined);
  // Read again with another value (a save, another owner's change): the form shows it.
  useEffect(() => setText(saved === null ? '' : String(saved)), [saved]);
  const denied = denial(role, 'change account settings');
  const deniedId = useId('budget-denied');
  const errorId = useId('budget-error');
  const save = useAction(async (monthlyTokens: number | null) => {
    await api.updateAccount(account.accountId, { models: { monthlyTokens } });
    announce(monthlyTokens === null ? 'The model budget is removed.' : `The model budget is ${monthlyTokens.toLocaleString('en-US')} tokens a month.`);
    refreshAccount();
  });
  const parsed = budgetFromText(text);
  return (
    <section aria-labelledby="model-budget-title" class="card">
      <h2 id="model-budget-title">Model budget</h2>
      <p>{budgetInWords(saved)} Every run's tokens, in and out, count against it; a run it cannot cover is refused, and nothing runs.</p>
      <DeniedNote id={deniedId} reason={denied} />
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          setChecked(parsed.problem);
          if (parsed.problem === undefined) void save.run(parsed.tokens);
        }}
      >
        <Control
          label="Monthly model tokens"
          hint="A whole number; empty for no budget."
          problem={save.problem}
          field="models.monthlyTokens"
          describedBy={[checked ? errorId : '', denied ? deniedId : ''].filter(Boolean).join(' ')}
        >
          {(control) => (
            <input
              {...control}
              value={text}
              inputMode="numeric"
              size={16}
              disabled={denied !== undefined}
              aria-invalid={checked ? 'true' : undefined}
              onInput={(event) => setText(event.currentTarget.value)}
            />
          )}
        </Control>
        <Button type="submit" kind="primary" busy={save.busy} busyText="Saving…" denied={denied} deniedId={deniedId} disabled={parsed.tokens === saved}>
          Save budget
        </Button>
      </form>
      {checked ? (
        <p class="field-error" id={errorId} role="alert">
          {checked}
        </p>
      ) : null}
      {isFieldProblem(save.problem, ['models']) ? null : <ErrorNote problem={save.problem} doing="Saving the model budget" />}
    </section>
  );
}
