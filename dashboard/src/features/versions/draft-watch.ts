import { useEffect, useRef } from 'preact/hooks';
import type { StoredVersion } from '../../api/types';
import { ApiProblem } from '../../logic/api-errors';
import { useWorkspace } from '../../workspace';

/** Why a tab's draft can no longer be edited: someone published or deleted it in another tab or browser. */
export interface Gone {
  readonly reason: 'published' | 'deleted';
  readonly by?: string | null;
  readonly at?: string | null;
}

/** How often an open draft looks whether it was published or deleted elsewhere, beside each return to the tab. */
const CHECK_EVERY_MS = 30_000;

/**
 * Looks at the draft as stored, on each return to the tab and every 30 s, until it is gone: published or deleted
 * elsewhere is `onGone`; saved by a teammate while this tab has nothing unsaved (nor a conflict open) is `onSaved`.
 */
export function useDraftWatch(
  promptId: string,
  version: string,
  state: { readonly baseEtag: string; readonly dirty: boolean; readonly conflict: boolean; readonly gone: boolean },
  on: { onGone(gone: Gone): void; onSaved(now: StoredVersion): void },
): void {
  const { api, account } = useWorkspace();
  const latest = useRef(on);
  latest.current = on;
  const { baseEtag, dirty, conflict, gone } = state;
  useEffect(() => {
    if (gone) return;
    let current = true;
    const look = () => {
      api.version(account.accountId, promptId, version).then(
        (now) => {
          if (!current) return;
          if (now.published) latest.current.onGone({ reason: 'published', by: now.updatedBy, at: now.updatedAt });
          else if (now.etag !== baseEtag && !dirty && !conflict) latest.current.onSaved(now);
        },
        (error: unknown) => {
          if (current && error instanceof ApiProblem && error.status === 404) latest.current.onGone({ reason: 'deleted' });
        },
      );
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible') look();
    };
    window.addEventListener('focus', look);
    document.addEventListener('visibilitychange', onVisible);
    const timer = setInterval(look, CHECK_EVERY_MS);
    return () => {
      current = false;
      window.removeEventListener('focus', look);
      document.removeEventListener('visibilitychange', onVisible);
      clearInterval(timer);
    };
  }, [api, account.accountId, promptId, version, baseEtag, dirty, conflict, gone]);
}
