import { useState } from 'preact/hooks';
import type { StoredVersion } from '../../api/types';
import { When } from '../../components/ui';
import type { SavedBy } from '../../logic/api-errors';
import type { DraftForm } from './draft-form';
import { wordPieces } from '../../logic/diff-rows';
import { DRAFT_FIELDS, differingFields, type FieldChoice, mergeForms } from './unsaved-work';

/** Why the panel opened: the person's kept text met a newer draft when the page came back, or a save met one. */
export type ConflictCause = 'came-back' | 'save';

export interface Conflict {
  readonly cause: ConflictCause;
  /** The draft as it is on the server now. */
  readonly theirs: StoredVersion;
  readonly theirsForm: DraftForm;
  /** The person's text, unsaved. */
  readonly mine: DraftForm;
  readonly by: SavedBy | undefined;
}

/**
 * Theirs and yours side by side, field by field (only the fields that differ), and a choice per field. Nothing
 * is saved here: choosing puts the result in the form, over their draft, for the person to save.
 */
export function ConflictPanel({ conflict, onResolve }: { conflict: Conflict; onResolve(merged: DraftForm): void }) {
  const fields = differingFields(conflict.theirsForm, conflict.mine);
  const [choices, setChoices] = useState<ReadonlyMap<keyof DraftForm, FieldChoice>>(new Map());
  const who = conflict.by?.updatedBy ?? conflict.theirs.updatedBy ?? 'Someone';
  const at = conflict.by?.updatedAt ?? conflict.theirs.updatedAt ?? undefined;
  const allChosen = fields.every((field) => choices.has(field));
  const resolveAll = (choice: FieldChoice) => onResolve(mergeForms(conflict.theirsForm, conflict.mine, new Map(fields.map((field) => [field, choice]))));
  return (
    <section class="conflict" aria-labelledby="conflict-title">
      <h2 id="conflict-title">{conflict.cause === 'save' ? 'Someone saved this draft in between' : 'This draft changed since you typed your unsaved text'}</h2>
      <p role="alert">
        <strong>{who}</strong> saved it
        {at ? (
          <>
            {' '}
            at <When iso={at} />
          </>
        ) : null}{' '}
        after you started your changes. Their draft stays as they saved it until you choose. Your text is kept here, unsaved: for each field below, take theirs
        or keep yours, then save.
      </p>
      {fields.length === 0 ? <p>Your text and theirs are the same: nothing to choose.</p> : null}
      {fields.map((field) => {
        const label = DRAFT_FIELDS.find((entry) => entry.field === field)?.label ?? field;
        return (
          <fieldset key={field} class="conflict-field">
            <legend>{label}</legend>
            <div class="sides">
              <div>
                <h3>Theirs</h3>
                <ChangedText text={conflict.theirsForm[field]} other={conflict.mine[field]} side="theirs" label={`Their ${label}`} />
              </div>
              <div>
                <h3>Yours</h3>
                <ChangedText text={conflict.mine[field]} other={conflict.theirsForm[field]} side="mine" label={`Your ${label}`} />
              </div>
            </div>
            <div class="choices" role="radiogroup" aria-label={`Which ${label} to keep`}>
              {(['theirs', 'mine'] as const).map((choice) => (
                <label key={choice}>
                  <input
                    type="radio"
                    name={`conflict-${field}`}
                    checked={choices.get(field) === choice}
                    aria-label={`${choice === 'theirs' ? 'Take theirs' : 'Keep mine'}: ${label}`}
                    onChange={() => setChoices(new Map(choices).set(field, choice))}
                  />{' '}
                  {choice === 'theirs' ? 'Take theirs' : 'Keep mine'}
                </label>
              ))}
            </div>
          </fieldset>
        );
      })}
      <div class="actions">
        <button type="button" class="button primary" disabled={!allChosen} onClick={() => onResolve(mergeForms(conflict.theirsForm, conflict.mine, choices))}>
          Use my choices
        </button>
        <button type="button" class="button plain" onClick={() => resolveAll('mine')}>
          Keep all mine
        </button>
        <button type="button" class="button plain" onClick={() => resolveAll('theirs')}>
          Take all theirs
        </button>
      </div>
    </section>
  );
}

/** A field's text with the words that differ from the other side marked. */
function ChangedText({ text, other, side, label }: { text: string; other: string; side: FieldChoice; label: string }) {
  const pieces = side === 'mine' ? wordPieces(other, text) : wordPieces(text, other);
  return (
    <figure>
      <figcaption class="visually-hidden">{label}</figcaption>
      <pre class="message">
        {text === '' ? <span class="muted">(empty)</span> : null}
        {pieces.map((piece, index) => {
          if (piece.kind === 'same') return piece.text;
          const shown = side === 'theirs' ? piece.kind === 'removed' : piece.kind === 'added';
          if (!shown) return null;
          return side === 'theirs' ? <del key={index}>{piece.text}</del> : <ins key={index}>{piece.text}</ins>;
        })}
      </pre>
    </figure>
  );
}
