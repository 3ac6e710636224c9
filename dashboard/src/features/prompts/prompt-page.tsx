import { useLoad } from '../../components/hooks';
import { ErrorNote, Loading, PageTitle } from '../../components/ui';
import { hrefOf } from '../../logic/route';
import { useWorkspace } from '../../workspace';
import { CompareChooser } from '../versions/compare-chooser';
import { NewDraft } from '../versions/new-draft';
import { VersionList } from '../versions/version-list';
import { DeleteRestore } from './delete-restore';
import { DetailsPanel } from './details-panel';
import { LabelSections } from './label-sections';

/** A prompt: its versions (published and drafts), its labels, a new draft, comparing, deleting and restoring. */
export function PromptPage({ promptId }: { promptId: string }) {
  const { api, account } = useWorkspace();
  const prompt = useLoad(() => api.prompt(account.accountId, promptId), [api, account.accountId, promptId]);
  if (!prompt.data) {
    return (
      <>
        <PageTitle>{promptId}</PageTitle>
        {prompt.loading ? <Loading what="the prompt" /> : null}
        <ErrorNote problem={prompt.problem} doing="Reading the prompt" />
      </>
    );
  }
  const detail = prompt.data;
  return (
    <>
      <p class="breadcrumb">
        <a href={hrefOf({ page: 'prompts', accountId: account.accountId })}>Prompts</a> / <span class="mono">{detail.promptId}</span>
      </p>
      <PageTitle
        actions={
          <a class="button plain" href={hrefOf({ page: 'playground', accountId: account.accountId, promptId })}>
            Playground
          </a>
        }
      >
        {detail.promptName}
      </PageTitle>
      <p class="muted">
        <span class="mono">{detail.promptId}</span> · latest published: <strong class="mono">{detail.latestVersion ?? 'none'}</strong>
        {detail.deleted ? (
          <>
            {' '}
            · <span class="badge warn">deleted: the read API answers 404 for it</span>
          </>
        ) : null}
      </p>
      <DetailsPanel detail={detail} onChanged={prompt.reload} />
      <VersionList detail={detail} />
      <NewDraft detail={detail} />
      <LabelSections detail={detail} onChanged={prompt.reload} />
      <CompareChooser detail={detail} />
      <DeleteRestore detail={detail} onChanged={prompt.reload} />
    </>
  );
}
