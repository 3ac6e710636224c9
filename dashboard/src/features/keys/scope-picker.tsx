import { useState } from 'preact/hooks';
import { useId, useLoad } from '../../components/hooks';
import { Button, Control } from '../../components/ui';
import { prefixSuggestions, scopeEntryOf, scopeMatch } from './key-scope';
import { useWorkspace } from '../../workspace';

/** The prompts a key may read: picked from the account's prompt ids and their prefixes; an id no prompt has is pointed out. */
export function ScopePicker({
  scope,
  onChange,
  disabled,
  problem,
}: {
  scope: readonly string[];
  onChange(scope: readonly string[]): void;
  disabled: boolean;
  problem: unknown;
}) {
  const { api, account } = useWorkspace();
  const prompts = useLoad(() => api.prompts(account.accountId), [api, account.accountId]);
  const promptIds = (prompts.data ?? []).filter((prompt) => !prompt.deleted).map((prompt) => prompt.promptId);
  const [text, setText] = useState('');
  const listId = useId('scope-choices');
  const entry = scopeEntryOf(text);
  const add = () => {
    if (entry === undefined || scope.includes(entry)) return;
    onChange([...scope, entry]);
    setText('');
  };
  return (
    <fieldset class="scope-picker">
      <legend>Scope</legend>
      <p class="hint">
        Which prompts the key may read: pick prompt ids, or prefixes like <code>web.*</code>. None: every prompt of the account.
      </p>
      {scope.length === 0 ? (
        <p>Every prompt.</p>
      ) : (
        <ul class="scope-entries" aria-label="Prompts the key may read">
          {scope.map((item) => {
            const match = scopeMatch(item, promptIds);
            return (
              <li key={item}>
                <span class="mono">{item}</span> <span class={match.matches === 0 ? 'field-error' : 'muted'}>({match.words})</span>{' '}
                <button
                  type="button"
                  class="button plain small"
                  disabled={disabled}
                  aria-label={`Remove ${item} from the scope`}
                  onClick={() => onChange(scope.filter((other) => other !== item))}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div class="inline-form">
        <Control label="Add to the scope" problem={problem} field="scope" hint={entry !== undefined ? scopeMatch(entry, promptIds).words : undefined}>
          {(control) => (
            <input
              {...control}
              class="mono"
              list={listId}
              value={text}
              disabled={disabled}
              onInput={(event) => setText(event.currentTarget.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') {
                  event.preventDefault();
                  add();
                }
              }}
            />
          )}
        </Control>
        <datalist id={listId}>
          {[...promptIds, ...prefixSuggestions(promptIds)].map((id) => (
            <option key={id} value={id} />
          ))}
        </datalist>
        <Button disabled={disabled || entry === undefined} onClick={add}>
          Add
        </Button>
      </div>
    </fieldset>
  );
}
