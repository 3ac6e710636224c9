import type { ChangeRequest } from '../../api/types';
import { hrefOf } from '../../logic/route';
import { useWorkspace } from '../../workspace';

/** Said after a label change that opened a change request instead: plainly, with the way to it (the page's live region announces it). */
export function ChangeRequestOpenedNote({ request }: { request: ChangeRequest }) {
  const { account } = useWorkspace();
  return (
    <p class="notice">
      A change request was opened: {request.label} stays at {request.from ?? 'no version'} until it is approved, then{' '}
      {request.to === null ? 'is removed' : `moves to ${request.to}`}.{' '}
      <a href={hrefOf({ page: 'change-request', accountId: account.accountId, requestId: request.requestId })}>Open the change request</a>
    </p>
  );
}
