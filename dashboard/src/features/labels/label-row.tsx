import { useState } from 'preact/hooks';
import type { PromptDetail, Rollout } from '../../api/types';
import { useId } from '../../components/hooks';
import { Button, DeniedNote, ErrorNote } from '../../components/ui';
import { labelDenial } from '../../logic/roles';
import { useWorkspace } from '../../workspace';
import { rollingOutNote } from '../rollouts/rollouts';
import { ChangeRequestOpenedNote } from './change-request-opened-note';
import { protectedLabelsOf } from './label-change';
import { LabelMoveDialog } from './label-move-dialog';
import { useLabelMove } from './use-label-move';

/** One label: the version it points at, moving it to another published version, and removing it. */
export function LabelRow(props: {
  detail: PromptDetail;
  label: string;
  version: string;
  published: string[];
  rollout: Rollout | undefined;
  onChanged(): void;
}) {
  const { role, settings } = useWorkspace();
  const { detail, label } = props;
  const [target, setTarget] = useState(props.version);
  const move = useLabelMove(detail.promptId, label, { onChanged: props.onChanged });
  const denied = labelDenial(role, label, protectedLabelsOf(settings)) ?? (props.rollout ? rollingOutNote(props.rollout) : undefined);
  const deniedId = useId('label-denied');
  return (
    <tr>
      <th scope="row">
        <span class="badge">{label}</span> {move.isProtected ? <span class="muted">protected</span> : null}
      </th>
      <td class="mono">{props.version}</td>
      <td>
        <div class="inline-form">
          <label>
            Version for {label}
            <select
              value={target}
              disabled={denied !== undefined}
              aria-describedby={denied ? deniedId : undefined}
              onChange={(event) => setTarget(event.currentTarget.value)}
            >
              {props.published.map((v) => (
                <option key={v} value={v}>
                  {v}
                  {v === props.version ? ' (current)' : ''}
                </option>
              ))}
            </select>
          </label>
          <Button
            kind="primary"
            busy={move.sending?.kind === 'move' && move.asking === undefined}
            busyText="Moving…"
            denied={denied}
            deniedId={deniedId}
            disabled={target === props.version}
            onClick={() => move.propose({ kind: 'move', to: target })}
          >
            Move {label}
          </Button>
          <Button
            kind="danger"
            busy={move.sending?.kind === 'remove'}
            busyText="Removing…"
            denied={denied}
            deniedId={deniedId}
            onClick={() => move.propose({ kind: 'remove' })}
          >
            Remove {label}
          </Button>
        </div>
        <DeniedNote id={deniedId} reason={denied} />
        {move.asking ? null : <ErrorNote problem={move.problem} doing={move.failed?.kind === 'remove' ? `Removing ${label}` : `Moving ${label}`} />}
        {move.opened ? <ChangeRequestOpenedNote request={move.opened} /> : null}
        <LabelMoveDialog move={move} from={props.version} />
      </td>
    </tr>
  );
}
