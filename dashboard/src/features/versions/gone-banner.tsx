import { useEffect, useRef } from 'preact/hooks';
import { When } from '../../components/ui';
import { hrefOf } from '../../logic/route';
import { useWorkspace } from '../../workspace';
import type { Gone } from './draft-watch';

/** A draft published or deleted in another tab or by a teammate: said at the top, where it is seen, and focused. */
export function GoneBanner({ gone, promptId, version, dirty }: { gone: Gone; promptId: string; version: string; dirty: boolean }) {
  const { account } = useWorkspace();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, [gone]);
  return (
    <div class="banner" role="alert" tabIndex={-1} ref={ref}>
      {gone.reason === 'published' ? (
        <>
          Version {version} was published{gone.by ? ` by ${gone.by}` : ''}
          {gone.at ? (
            <>
              {' '}
              at <When iso={gone.at} />
            </>
          ) : null}{' '}
          in the meantime, so it can no longer be edited here.{' '}
          <a href={hrefOf({ page: 'version', accountId: account.accountId, promptId, version })} onClick={() => location.reload()}>
            Open the published version
          </a>
          .
        </>
      ) : (
        <>Draft {version} was deleted in the meantime, so it can no longer be edited here.</>
      )}{' '}
      {dirty ? 'Your unsaved text is kept below: copy what you need into a new draft.' : ''}
    </div>
  );
}
