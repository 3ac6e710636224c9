import { type PlaceholderChange, placeholderWarnings } from '../logic/placeholders';

/**
 * The variables a label move adds and removes, listed, with a plain warning when the new version needs one the
 * old did not: every caller that fills only the old ones would break.
 */
export function PlaceholderChangeView({ change, hadBefore = true, titleId }: { change: PlaceholderChange; hadBefore?: boolean; titleId: string }) {
  const warnings = placeholderWarnings(change, hadBefore);
  return (
    <section class="placeholders" aria-labelledby={titleId}>
      <h3 id={titleId}>Variables</h3>
      {change.added.length === 0 && change.removed.length === 0 ? (
        <p>The same variables: callers fill nothing new.</p>
      ) : (
        <dl class="config">
          <dt>Added</dt>
          <dd>{change.added.length === 0 ? '—' : <VariableList names={change.added} label="Variables added" />}</dd>
          <dt>Removed</dt>
          <dd>{change.removed.length === 0 ? '—' : <VariableList names={change.removed} label="Variables removed" />}</dd>
        </dl>
      )}
      {warnings.added ? (
        <p class="warning">
          <strong>Warning:</strong> {warnings.added}
        </p>
      ) : null}
      {warnings.removed ? <p class="muted">{warnings.removed}</p> : null}
    </section>
  );
}

function VariableList({ names, label }: { names: readonly string[]; label: string }) {
  return (
    <ul class="variables" aria-label={label}>
      {names.map((name) => (
        <li key={name} class="mono">{`\${${name}}`}</li>
      ))}
    </ul>
  );
}
