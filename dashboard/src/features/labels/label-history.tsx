import { useState } from 'preact/hooks';
import type { PromptDetail, Rollout } from '../../api/types';
import { useId, useLoad } from '../../components/hooks';
import { Button, DeniedNote, ErrorNote, Loading, When } from '../../components/ui';
import { ChangeRequestOpenedNote } from './change-request-opened-note';
import { historyMove, historyReason, restoreTarget } from './history-text';
import { protectedLabelsOf } from './label-change';
import { LabelMoveDialog } from './label-move-dialog';
import { useLabelMove } from './use-label-move';
import { rollingOutNote, rolloutEventText, rolloutOfReason } from '../rollouts/rollouts';
import { hrefOf } from '../../logic/route';
import { labelDenial } from '../../logic/roles';
import { useWorkspace } from '../../workspace';

/**
 * Where each of the prompt's labels pointed, newest first, 50 a page: who moved it, when, from and to which
 * version, and why. Each past position can be restored: after the diff from the label's version now to that
 * one, and a confirmation; where the account's approvals cover the label, restoring opens a change request.
 */
export function LabelHistory({
  detail,
  rollouts,
  rolloutMarks,
  onChanged,
}: {
  detail: PromptDetail;
  /** The labels' active rollouts: a label rolling out cannot be restored until the rollout ends. */
  rollouts?: ReadonlyMap<string, Rollout> | undefined;
  /** Per label, what changes when its rollout starts, changes share or ends: the history is read again then. */
  rolloutMarks?: ReadonlyMap<string, string>;
  onChanged(): void;
}) {
  const labels = Object.keys(detail.labels).sort((a, b) => a.localeCompare(b));
  return (
    <section aria-labelledby="label-history-title">
      <h2 id="label-history-title">Label history</h2>
      {labels.length === 0 ? <p>No labels yet, so no history.</p> : null}
      {labels.map((label) => (
        <OneLabelHistory
          key={label}
          detail={detail}
          label={label}
          current={detail.labels[label]}
          rollout={rollouts?.get(label)}
          rolloutMark={rolloutMarks?.get(label) ?? ''}
          onChanged={onChanged}
        />
      ))}
    </section>
  );
}

function OneLabelHistory(props: {
  detail: PromptDetail;
  label: string;
  current: string | undefined;
  rollout: Rollout | undefined;
  rolloutMark: string;
  onChanged(): void;
}) {
  const { detail, label, current, rollout, rolloutMark, onChanged } = props;
  const { api, account, role, settings } = useWorkspace();
  // The cursors of the pages seen so far: the first page has none.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  // Read again when the label moves (`current`), so a restore shows at the top.
  const page = useLoad(
    () => api.labelHistory(account.accountId, detail.promptId, label, cursor),
    [api, account.accountId, detail.promptId, label, cursor, current, rolloutMark],
  );
  const move = useLabelMove(detail.promptId, label, {
    onChanged: () => {
      // Back to the first page, where the restore shows at the top.
      setCursors([undefined]);
      onChanged();
    },
  });
  const denied = labelDenial(role, label, protectedLabelsOf(settings)) ?? (rollout ? rollingOutNote(rollout) : undefined);
  const deniedId = useId('history-denied');
  const titleId = useId('history-title');
  const pageNumber = cursors.length;
  const next = page.data?.next ?? undefined;
  return (
    <section aria-labelledby={titleId} class="label-history">
      <h3 id={titleId}>
        History of <span class="badge">{label}</span>
      </h3>
      <DeniedNote id={deniedId} reason={denied} />
      {move.opened ? <ChangeRequestOpenedNote request={move.opened} /> : null}
      {page.loading && !page.data ? <Loading what={`the history of ${label}`} /> : null}
      <ErrorNote problem={page.problem} doing={`Reading the history of ${label}`} />
      {page.data ? (
        page.data.entries.length === 0 ? (
          <p>No moves recorded for {label} yet.</p>
        ) : (
          <table class="list" aria-labelledby={titleId}>
            <thead>
              <tr>
                <th scope="col">Move</th>
                <th scope="col">Who and when</th>
                <th scope="col">Reason</th>
                <th scope="col">Restore</th>
              </tr>
            </thead>
            <tbody>
              {page.data.entries.map((entry, index) => {
                // A rollout's start, share changes and abort left the label where it was: nothing to go back to there.
                const inPlace = entry.rollout !== undefined && entry.rollout !== null && entry.rollout.event !== 'completed';
                const target = inPlace ? undefined : restoreTarget(entry, current);
                return (
                  <tr key={`${entry.at}-${index}`}>
                    <th scope="row" class={entry.rollout ? undefined : 'mono'}>
                      {entry.rollout ? rolloutEventText({ from: entry.from, rollout: entry.rollout }) : historyMove(entry)}
                    </th>
                    <td>
                      {entry.by}
                      <div class="muted">
                        <When iso={entry.at} />
                      </div>
                    </td>
                    <td>
                      <Reason reason={entry.reason} />
                    </td>
                    <td>
                      {target ? (
                        <Button
                          kind="plain"
                          denied={denied}
                          deniedId={deniedId}
                          busy={move.sending?.kind === 'restore' && move.sending.to === target}
                          busyText="Restoring…"
                          aria-label={`Restore ${label} to ${target}`}
                          onClick={() => move.ask({ kind: 'restore', to: target })}
                        >
                          Restore
                        </Button>
                      ) : !inPlace && entry.to !== null && entry.to === current ? (
                        // The newest entry is where the label is; an older one at the same version needs no restore.
                        <span class="muted">{pageNumber === 1 && index === 0 ? `${label} is here now` : 'the version it has now'}</span>
                      ) : (
                        <span class="muted">—</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )
      ) : null}
      {pageNumber > 1 || next ? (
        <div class="actions">
          <Button disabled={pageNumber === 1} onClick={() => setCursors(cursors.slice(0, -1))} aria-label={`Newer moves of ${label}`}>
            Newer moves
          </Button>
          <Button disabled={!next} onClick={() => next && setCursors([...cursors, next])} aria-label={`Older moves of ${label}`}>
            Older moves
          </Button>
        </div>
      ) : null}
      <LabelMoveDialog move={move} from={current} />
    </section>
  );
}

/** Why the label moved: the note, or how (a restore, a change request, linked, a push, an import). */
function Reason({ reason }: { reason: string | null | undefined }) {
  const { account } = useWorkspace();
  const rolloutId = rolloutOfReason(reason);
  if (rolloutId) return <span class="mono">{rolloutId}</span>;
  const said = historyReason(reason);
  if (!said) return <span class="muted">—</span>;
  if (!said.requestId) return <>{said.text}</>;
  return (
    <>
      {said.text}:{' '}
      <a class="mono" href={hrefOf({ page: 'change-request', accountId: account.accountId, requestId: said.requestId })}>
        {said.requestId}
      </a>
    </>
  );
}
