import type { PromptDetail, StoredVersion } from '../../api/types';
import { ReadOnlyText } from '../../components/fields';
import { useLoad } from '../../components/hooks';
import { ErrorNote, Loading, PageTitle, When } from '../../components/ui';
import { formOf } from './draft-form';
import { hrefOf } from '../../logic/route';
import { DraftEditor } from './draft-editor';
import { Preview, useSampleValues } from './preview';
import { useWorkspace } from '../../workspace';
import { NewDraft } from './new-draft';

/** One version: a published one to read, or a draft to edit, preview, save and publish. */
export function VersionPage({ promptId, version }: { promptId: string; version: string }) {
  const { api, account } = useWorkspace();
  const stored = useLoad(() => api.version(account.accountId, promptId, version), [api, account.accountId, promptId, version]);
  const prompt = useLoad(() => api.prompt(account.accountId, promptId), [api, account.accountId, promptId, stored.data?.published]);
  const crumbs = (
    <p class="breadcrumb">
      <a href={hrefOf({ page: 'prompts', accountId: account.accountId })}>Prompts</a> /{' '}
      <a href={hrefOf({ page: 'prompt', accountId: account.accountId, promptId })} class="mono">
        {promptId}
      </a>{' '}
      / <span class="mono">{version}</span>
    </p>
  );
  if (!stored.data) {
    return (
      <>
        {crumbs}
        <PageTitle>{`Version ${version}`}</PageTitle>
        {stored.loading ? <Loading what="the version" /> : null}
        <ErrorNote problem={stored.problem} doing="Reading the version" />
      </>
    );
  }
  return (
    <>
      {crumbs}
      {stored.data.published ? (
        <Published promptId={promptId} stored={stored.data} detail={prompt.data} />
      ) : (
        <DraftEditor key={stored.data.etag} promptId={promptId} stored={stored.data} detail={prompt.data} onPublished={stored.reload} />
      )}
    </>
  );
}

function Published({ promptId, stored, detail }: { promptId: string; stored: StoredVersion; detail: PromptDetail | undefined }) {
  const { account } = useWorkspace();
  const summary = detail?.versions.find((v) => v.version === stored.version);
  const [samples, setSamples] = useSampleValues(promptId);
  const form = formOf(stored);
  return (
    <>
      <PageTitle>{`${detail?.promptName ?? promptId} ${stored.version}`}</PageTitle>
      <p>
        <span class="badge ok">published</span> by {summary?.publishedBy ?? 'someone'} <When iso={summary?.publishedAt} />
        {summary?.note ? (
          <>
            {' '}
            · note: <q>{summary.note}</q>
          </>
        ) : null}
      </p>
      <p class="muted">
        A published version never changes: to change it, start a new draft from it below. Labels are moved on the{' '}
        <a href={hrefOf({ page: 'prompt', accountId: account.accountId, promptId })}>prompt's page</a>.
      </p>
      <div class="editor">
        <div class="fields">
          <ReadOnlyText label="System message" text={stored.systemMessage} />
          <ReadOnlyText label="User message template" text={stored.userMessage} />
          <dl class="config">
            <dt>Model</dt>
            <dd class="mono">{form.model}</dd>
            <dt>Temperature</dt>
            <dd class="mono">{form.temperature}</dd>
            <dt>Schema</dt>
            <dd>
              <pre>{form.schema}</pre>
            </dd>
            <dt>Input data</dt>
            <dd>
              <pre>{form.inputData || 'none'}</pre>
            </dd>
          </dl>
        </div>
        <Preview systemMessage={stored.systemMessage} userMessage={stored.userMessage} samples={samples} onSamples={setSamples} />
      </div>
      {detail ? <NewDraft detail={detail} initialFrom={stored.version} /> : null}
    </>
  );
}
