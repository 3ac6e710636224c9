import type { PromptDetail, Rollout } from '../../api/types';
import { useWorkspace } from '../../workspace';
import { newestFirst } from '../versions/versions';
import { AddLabel } from './add-label';
import { protectedLabelsOf } from './label-change';
import { LabelRow } from './label-row';

/** The prompt's labels: where each points, moving and removing them, and pointing one at a version. */
export function LabelsPanel({ detail, rollouts, onChanged }: { detail: PromptDetail; rollouts: ReadonlyMap<string, Rollout> | undefined; onChanged(): void }) {
  const { settings } = useWorkspace();
  const published = newestFirst(detail.versions.filter((v) => v.published)).map((v) => v.version);
  const protectedLabels = protectedLabelsOf(settings);
  const approvals = settings?.approvals;
  const labels = Object.entries(detail.labels).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section aria-labelledby="labels-title">
      <h2 id="labels-title">Labels</h2>
      <p class="muted">
        The read API serves a label's version for <code>?label=name</code>. To roll back, move the label to an earlier version, or restore it from its history
        below: it follows from the next request. Protected labels ({protectedLabels.join(', ') || 'none'}) need an admin.
        {approvals && approvals.labels.length > 0
          ? ` Moves of ${approvals.labels.join(', ')} need ${approvals.required === 1 ? 'an approval' : `${approvals.required} approvals`}: they open a change request.`
          : ''}
      </p>
      {published.length === 0 ? <p>Publish a version before labelling it.</p> : null}
      {labels.length > 0 ? (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Version</th>
              <th scope="col">Move or remove</th>
            </tr>
          </thead>
          <tbody>
            {labels.map(([label, version]) => (
              <LabelRow
                key={label}
                detail={detail}
                label={label}
                version={version}
                published={published}
                rollout={rollouts?.get(label)}
                onChanged={onChanged}
              />
            ))}
          </tbody>
        </table>
      ) : (
        <p>No labels yet.</p>
      )}
      {published.length > 0 ? <AddLabel detail={detail} published={published} onChanged={onChanged} /> : null}
    </section>
  );
}
