import { useState } from 'preact/hooks';
import type { PromptDetail, Rollout } from '../../api/types';
import { useId } from '../../components/hooks';
import { Button, DeniedNote, ErrorNote, Loading } from '../../components/ui';
import { labelDenial } from '../../logic/roles';
import { useWorkspace } from '../../workspace';
import { protectedLabelsOf } from '../labels/label-change';
import { useLabelMove } from '../labels/use-label-move';
import { newestFirst } from '../versions/versions';
import { ActiveRollout } from './active-rollout';
import { endedText } from './rollouts';
import { RolloutChangeRequestNote, StartRolloutDialog } from './start-rollout-dialog';

/**
 * Rollouts (docs/rollouts.md): per label, a way to start moving it to another version for a share of subjects
 * (after the diff), and while one is active the panel to watch it (share, served counts, who started it) and to
 * change the share, complete or abort it. Those who may not move the label see it read-only.
 */
export function RolloutsSection(props: {
  detail: PromptDetail;
  rollouts: ReadonlyMap<string, Rollout> | undefined;
  loading: boolean;
  problem: unknown;
  onChanged(): void;
}) {
  const labels = Object.keys(props.detail.labels).sort((a, b) => a.localeCompare(b));
  return (
    <section aria-labelledby="rollouts-title">
      <h2 id="rollouts-title">Rollouts</h2>
      <p class="muted">
        A rollout moves a label for a share of subjects first: each subject (sent as <code>X-Prompt-Subject</code>) stays on its side while the share holds.
        Raise the share as confidence grows, then complete it (the label moves) or abort it (the label stays).
      </p>
      {labels.length === 0 ? <p>Point a label at a version before rolling it out.</p> : null}
      {props.rollouts === undefined && props.loading ? <Loading what="the rollouts" /> : null}
      <ErrorNote problem={props.problem} doing="Reading the rollouts" />
      {props.rollouts
        ? labels.map((label) => (
            <LabelRollout
              key={label}
              detail={props.detail}
              label={label}
              version={props.detail.labels[label] ?? ''}
              rollout={props.rollouts?.get(label)}
              onChanged={props.onChanged}
            />
          ))
        : null}
    </section>
  );
}

/** The share a new rollout starts at, until the person picks another. */
const FIRST_SHARE = 10;

function LabelRollout(props: { detail: PromptDetail; label: string; version: string; rollout: Rollout | undefined; onChanged(): void }) {
  const { role, settings } = useWorkspace();
  const { detail, label, version, rollout } = props;
  // Someone started one or opened a request meanwhile (409): the panel reads it again behind the dialog.
  const move = useLabelMove(detail.promptId, label, { onChanged: props.onChanged, onConflict: props.onChanged });
  const [ended, setEnded] = useState<Rollout | undefined>(undefined);
  const titleId = useId('rollout-title');
  const deniedId = useId('rollout-denied');
  const denied = labelDenial(role, label, protectedLabelsOf(settings));
  const candidates = newestFirst(detail.versions.filter((v) => v.published && v.version !== version)).map((v) => v.version);
  return (
    <section aria-labelledby={titleId} class="card rollout">
      <h3 id={titleId}>
        Rollout of <span class="badge">{label}</span>
      </h3>
      <DeniedNote id={deniedId} reason={denied} />
      {ended ? (
        <p class="notice" role="status">
          {endedText(ended)}
        </p>
      ) : null}
      {rollout ? (
        <ActiveRollout
          detail={detail}
          rollout={rollout}
          denied={denied}
          onEnded={(answer) => {
            setEnded(answer);
            props.onChanged();
          }}
          onChanged={props.onChanged}
        />
      ) : (
        <>
          <p>
            {label} is not rolling out: every read at <code>?label={label}</code> gets {version}.
          </p>
          {move.opened ? <RolloutChangeRequestNote request={move.opened} /> : null}
          {denied === undefined ? (
            <Button
              kind="primary"
              disabled={candidates.length === 0}
              aria-describedby={candidates.length === 0 ? `${titleId}-none` : undefined}
              onClick={() => {
                setEnded(undefined);
                move.ask({ kind: 'rollout', to: candidates[0] ?? '', percent: FIRST_SHARE });
              }}
            >
              Start a rollout of {label}
            </Button>
          ) : null}
          {candidates.length === 0 && denied === undefined ? (
            <p class="hint" id={`${titleId}-none`}>
              Publish another version to roll {label} out to it.
            </p>
          ) : null}
        </>
      )}
      {move.asking?.kind === 'rollout' && candidates.length > 0 ? (
        <StartRolloutDialog move={move} start={move.asking} from={version} candidates={candidates} />
      ) : null}
    </section>
  );
}
