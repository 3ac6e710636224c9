import type { PromptDetail } from '../../api/types';
import { When } from '../../components/ui';
import { hrefOf } from '../../logic/route';
import { useWorkspace } from '../../workspace';
import { newestFirst } from './versions';

/** The prompt's versions, newest first: published and drafts, the labels on each, who and when, and the note. */
export function VersionList({ detail }: { detail: PromptDetail }) {
  const { account } = useWorkspace();
  const versions = newestFirst(detail.versions);
  const labelsOf = (version: string) =>
    Object.entries(detail.labels)
      .filter(([, v]) => v === version)
      .map(([label]) => label);
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      {versions.length === 0 ? <p>No versions yet: start a draft below.</p> : null}
      <table class="list">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">State</th>
            <th scope="col">By and when</th>
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => (
            <tr key={v.version}>
              <th scope="row">
                <a
                  class="mono"
                  href={hrefOf({ page: 'version', accountId: account.accountId, promptId: detail.promptId, version: v.version })}
                  aria-label={`Open version ${v.version}${v.published ? '' : ' (draft)'}`}
                >
                  {v.version}
                </a>{' '}
                {labelsOf(v.version).map((label) => (
                  <span key={label} class="badge">
                    {label}
                  </span>
                ))}
              </th>
              <td>{v.published ? <span class="badge ok">published</span> : <span class="badge draft">draft</span>}</td>
              <td>
                {v.published ? (
                  <>
                    {v.publishedBy ?? '—'}
                    <div class="muted">
                      <When iso={v.publishedAt} />
                    </div>
                  </>
                ) : (
                  <>
                    {v.updatedBy ?? '—'}
                    <div class="muted">
                      saved <When iso={v.updatedAt} />
                    </div>
                  </>
                )}
              </td>
              <td>{v.note ?? <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
