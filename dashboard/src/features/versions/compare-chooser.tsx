import { useState } from 'preact/hooks';
import type { PromptDetail } from '../../api/types';
import { Button } from '../../components/ui';
import { useWorkspace } from '../../workspace';
import { newestFirst } from './versions';

/** Two versions of the prompt picked to compare, side by side on the compare page. */
export function CompareChooser({ detail }: { detail: PromptDetail }) {
  const { account, navigate } = useWorkspace();
  const versions = newestFirst(detail.versions).map((v) => v.version);
  const [to, setTo] = useState(versions[0] ?? '');
  const [from, setFrom] = useState(versions[1] ?? versions[0] ?? '');
  if (versions.length < 2) return null;
  return (
    <section aria-labelledby="compare-title">
      <h2 id="compare-title">Compare two versions</h2>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          navigate({ page: 'compare', accountId: account.accountId, promptId: detail.promptId, from, to });
        }}
      >
        <label>
          Compare from
          <select value={from} onChange={(event) => setFrom(event.currentTarget.value)}>
            {versions.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <label>
          Compare to
          <select value={to} onChange={(event) => setTo(event.currentTarget.value)}>
            {versions.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <Button type="submit">Show differences</Button>
      </form>
    </section>
  );
}
