import { DiffView } from '../../components/diff-view';
import { useLoad } from '../../components/hooks';
import { ErrorNote, Loading, PageTitle } from '../../components/ui';
import { hrefOf } from '../../logic/route';
import { useWorkspace } from '../../workspace';

/** Two versions side by side: any two, published or drafts. */
export function ComparePage({ promptId, from, to }: { promptId: string; from: string; to: string }) {
  const { api, account } = useWorkspace();
  const both = useLoad(
    () => Promise.all([api.version(account.accountId, promptId, from), api.version(account.accountId, promptId, to)]),
    [api, account.accountId, promptId, from, to],
  );
  return (
    <>
      <p class="breadcrumb">
        <a href={hrefOf({ page: 'prompts', accountId: account.accountId })}>Prompts</a> /{' '}
        <a href={hrefOf({ page: 'prompt', accountId: account.accountId, promptId })} class="mono">
          {promptId}
        </a>{' '}
        / compare
      </p>
      <PageTitle>{`Compare ${from} with ${to}`}</PageTitle>
      {both.loading && !both.data ? <Loading what="both versions" /> : null}
      <ErrorNote problem={both.problem} doing="Reading the versions" />
      {both.data ? <DiffView before={both.data[0]} after={both.data[1]} beforeTitle={`Version ${from}`} afterTitle={`Version ${to}`} /> : null}
    </>
  );
}
