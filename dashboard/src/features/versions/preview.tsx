import { useCallback, useState } from 'preact/hooks';
import { placeholdersIn, previewPieces, unfilled } from '../../logic/placeholders';
import { readSampleValues, sampleValuesKey, writeSampleValues } from './unsaved-work';
import { useWorkspace } from '../../workspace';

/**
 * The preview's sample values of one prompt, kept for the person in this tab: a reload, another version of the
 * same prompt and a new sign-in find them again.
 */
export function useSampleValues(promptId: string): [ReadonlyMap<string, string>, (samples: ReadonlyMap<string, string>) => void] {
  const { me, account } = useWorkspace();
  const key = sampleValuesKey({ userId: me.userId, accountId: account.accountId, promptId });
  const [samples, setSamples] = useState<ReadonlyMap<string, string>>(() => readSampleValues(sessionStorage, key));
  // Kept as it is typed, not in an effect after the next paint: a reload right after typing would lose it.
  const keep = useCallback(
    (next: ReadonlyMap<string, string>) => {
      writeSampleValues(sessionStorage, key, next);
      setSamples(next);
    },
    [key],
  );
  return [samples, keep];
}

/** The messages with sample values put in: what the application will send, once it fills the variables. */
export function Preview(props: {
  systemMessage: string;
  userMessage: string;
  samples: ReadonlyMap<string, string>;
  onSamples(samples: ReadonlyMap<string, string>): void;
}) {
  const { systemMessage, userMessage, samples, onSamples } = props;
  const variables = placeholdersIn(systemMessage, userMessage);
  const missing = unfilled(variables, samples);
  return (
    <section aria-labelledby="preview-title" class="preview">
      <h2 id="preview-title">Preview</h2>
      {variables.length > 0 ? (
        <fieldset>
          <legend>Sample values</legend>
          {variables.map((name) => (
            <label key={name} class="field">
              <span class="label">
                Sample value for <span class="mono">{name}</span>
              </span>
              <input
                value={samples.get(name) ?? ''}
                aria-label={`Sample value for ${name}`}
                onInput={(event) => onSamples(new Map(samples).set(name, event.currentTarget.value))}
              />
            </label>
          ))}
        </fieldset>
      ) : null}
      <p class="muted" role="status">
        {missing.length === 0
          ? variables.length === 0
            ? 'Nothing to fill in.'
            : 'Every variable has a sample value.'
          : `Still to fill in: ${missing.join(', ')}.`}
      </p>
      <section aria-labelledby="preview-system">
        <h3 id="preview-system">System message preview</h3>
        <PreviewText template={systemMessage} samples={samples} />
      </section>
      <section aria-labelledby="preview-user">
        <h3 id="preview-user">User message preview</h3>
        <PreviewText template={userMessage} samples={samples} />
      </section>
    </section>
  );
}

function PreviewText({ template, samples }: { template: string; samples: ReadonlyMap<string, string> }) {
  const pieces = previewPieces(template, samples);
  return (
    <pre class="message">
      {pieces.length === 0 ? <span class="muted">(empty)</span> : null}
      {pieces.map((piece, index) =>
        'text' in piece ? (
          piece.text
        ) : piece.value !== undefined ? (
          <mark key={index} title={`\${${piece.variable}}`}>
            {piece.value}
          </mark>
        ) : (
          <span key={index} class="gap">{`\${${piece.variable}}`}</span>
        ),
      )}
    </pre>
  );
}
