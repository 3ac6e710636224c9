import { useState } from 'preact/hooks';
import type { PromptDetail } from '../../api/types';
import { useId } from '../../components/hooks';
import { Button, Control, DeniedNote, ErrorNote, isFieldProblem } from '../../components/ui';
import { labelDenial } from '../../logic/roles';
import { useWorkspace } from '../../workspace';
import { ChangeRequestOpenedNote } from './change-request-opened-note';
import { protectedLabelsOf } from './label-change';
import { LabelMoveDialog } from './label-move-dialog';
import { useLabelMove } from './use-label-move';

const LABEL_HINT = '1 to 32 characters: a to z, 0 to 9, - and _, starting with a letter.';

/** Pointing a label, new or not, at a published version: the form below the labels. */
export function AddLabel(props: { detail: PromptDetail; published: string[]; onChanged(): void }) {
  const { role, settings } = useWorkspace();
  const [label, setLabel] = useState('');
  const [version, setVersion] = useState(props.published[0] ?? '');
  const name = label.trim();
  const move = useLabelMove(props.detail.promptId, name, { onChanged: props.onChanged, onSent: () => setLabel('') });
  const denied = labelDenial(role, name === '' ? 'staging' : name, protectedLabelsOf(settings));
  const deniedId = useId('add-label-denied');
  const current = Object.hasOwn(props.detail.labels, name) ? props.detail.labels[name] : undefined;
  return (
    <form
      class="inline-form card"
      aria-labelledby="add-label-title"
      onSubmit={(event) => {
        event.preventDefault();
        move.propose({ kind: 'point', to: version });
      }}
    >
      <h3 id="add-label-title">Point a label at a version</h3>
      <Control label="Label name" problem={move.problem} field="label" hint={LABEL_HINT} describedBy={denied ? deniedId : undefined}>
        {(control) => (
          <input
            {...control}
            value={label}
            list="common-labels"
            required
            pattern="[a-z][a-z0-9_\-]{0,31}"
            title={LABEL_HINT}
            disabled={denied !== undefined && name === ''}
            onInput={(event) => setLabel(event.currentTarget.value)}
          />
        )}
      </Control>
      <datalist id="common-labels">
        <option value="production" />
        <option value="staging" />
      </datalist>
      <Control label="Version to label">
        {(control) => (
          <select {...control} value={version} disabled={denied !== undefined} onChange={(event) => setVersion(event.currentTarget.value)}>
            {props.published.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        )}
      </Control>
      <Button
        type="submit"
        kind="primary"
        busy={move.sending !== undefined && move.asking === undefined}
        busyText="Setting…"
        denied={denied}
        deniedId={deniedId}
      >
        Set label
      </Button>
      <DeniedNote id={deniedId} reason={denied} />
      {isFieldProblem(move.problem, ['label']) || move.asking ? null : <ErrorNote problem={move.problem} doing="Setting the label" />}
      {move.opened ? <ChangeRequestOpenedNote request={move.opened} /> : null}
      <LabelMoveDialog move={move} from={current} />
    </form>
  );
}
