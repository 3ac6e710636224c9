import type { ChangeRequest } from '../../api/types';
import { When } from '../../components/ui';
import { approvalCount, approvalStandingText } from './change-requests';

/** The approvals given so far, each with whether it counts (its giver may still approve) and why not. */
export function Approvals({ request }: { request: ChangeRequest }) {
  return (
    <section aria-labelledby="approvals-title">
      <h2 id="approvals-title">Approvals ({approvalCount(request)})</h2>
      {request.approvals.length === 0 ? (
        <p>No approvals yet.</p>
      ) : (
        <ul class="approvals">
          {request.approvals.map((approval) => (
            <li key={`${approval.by}-${approval.at}`}>
              <strong>{approval.by}</strong> approved, <When iso={approval.at} />
              {approval.comment ? <>: “{approval.comment}”</> : null}{' '}
              {approval.counts === false ? (
                <strong>{approvalStandingText(approval, request.state)}</strong>
              ) : (
                <span class="muted">{approvalStandingText(approval, request.state)}</span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
