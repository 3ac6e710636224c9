import { useLoad } from '../../components/hooks';
import { ErrorNote, Loading, PageTitle } from '../../components/ui';
import { hrefOf } from '../../logic/route';
import { useWorkspace } from '../../workspace';
import { Playground } from './playground';

/** A prompt's Playground, on its own page: its versions and labels run side by side, and its past runs. */
export function PlaygroundPage({ promptId }: { promptId: string }) {
  const { api, account } = useWorkspace();
  const prompt = useLoad(() => api.prompt(account.accountId, promptId), [api, account.accountId, promptId]);
  const crumbs = (
    <p class="breadcrumb">
      <a href={hrefOf({ page: 'prompts', accountId: account.accountId })}>Prompts</a> /{' '}
      <a href={hrefOf({ page: 'prompt', accountId: account.accountId, promptId })} class="mono">
        {promptId}
      </a>{' '}
      / Playground
    </p>
  );
  if (!prompt.data) {
    return (
      <>
        {crumbs}
        <PageTitle>{`Playground of ${promptId}`}</PageTitle>
        {prompt.loading ? <Loading what="the prompt" /> : null}
        <ErrorNote problem={prompt.problem} doing="Reading the prompt" />
      </>
    );
  }
  return (
    <>
      {crumbs}
      <PageTitle>{`Playground of ${prompt.data.promptName}`}</PageTitle>
      <p class="muted">
        Run versions and labels of this prompt on the same variables, side by side. Each run uses the account's model tokens and is kept 90 days. To run text
        you have not saved, open the Playground in the draft editor.
      </p>
      {prompt.data.versions.length === 0 ? <p>This prompt has no version yet: write a draft first.</p> : <Playground detail={prompt.data} />}
    </>
  );
}
