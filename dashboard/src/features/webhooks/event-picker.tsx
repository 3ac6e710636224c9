import { useEffect, useRef } from 'preact/hooks';
import { useId } from '../../components/hooks';
import { isFieldProblem } from '../../components/ui';
import { ApiProblem, fieldMessage } from '../../logic/api-errors';
import { type EventChoice, eventGroups, groupState, withGroup, withType } from './webhooks';

/** The events a webhook takes: every event, or types picked by group. */
export function EventPicker({ choice, onChange, problem, name }: { choice: EventChoice; onChange(choice: EventChoice): void; problem: unknown; name: string }) {
  const errorId = useId('events-error');
  const shown = problemOfEvents(problem);
  return (
    <fieldset class="event-picker" aria-describedby={shown ? errorId : undefined}>
      <legend>{name}</legend>
      <label class="check">
        <input type="checkbox" checked={choice.every} onChange={(event) => onChange({ ...choice, every: event.currentTarget.checked })} /> every event (*)
      </label>
      <span class="hint">Every type, those added later too.</span>
      {choice.every ? null : eventGroups().map((group) => <GroupChecks key={group.prefix} group={group} choice={choice} onChange={onChange} />)}
      {shown ? (
        <p class="field-error" id={errorId} role="alert">
          {shown}
        </p>
      ) : null}
    </fieldset>
  );
}

/** The words of a problem with the events: the page's own check, or the API's 400 naming them. */
function problemOfEvents(problem: unknown): string | undefined {
  if (typeof problem === 'string') return problem;
  if (isFieldProblem(problem, ['events']) && problem instanceof ApiProblem) return fieldMessage(problem);
  return undefined;
}

function GroupChecks({ group, choice, onChange }: { group: ReturnType<typeof eventGroups>[number]; choice: EventChoice; onChange(choice: EventChoice): void }) {
  const state = groupState(choice, group);
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = state === 'some';
  }, [state]);
  return (
    <fieldset class="event-group">
      <legend>
        <label class="check">
          <input ref={ref} type="checkbox" checked={state === 'all'} onChange={(event) => onChange(withGroup(choice, group, event.currentTarget.checked))} />{' '}
          every {group.prefix}.* event
        </label>
      </legend>
      {group.types.map((type) => (
        <label class="check mono" key={type}>
          <input type="checkbox" checked={choice.types.includes(type)} onChange={(event) => onChange(withType(choice, type, event.currentTarget.checked))} />{' '}
          {type}
        </label>
      ))}
    </fieldset>
  );
}
