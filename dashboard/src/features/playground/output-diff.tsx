import { useState } from 'preact/hooks';
import { wordDiff, wordDiffSummary } from '../../logic/word-diff';

/**
 * The words two columns' outputs differ by: one text, words only the first has struck through and words only the
 * second has underlined, each also said in words (`removed:`, `added:`) for those who do not see the marks.
 */
export function OutputDiff({ outputs }: { outputs: readonly (string | undefined)[] }) {
  const [first, setFirst] = useState(0);
  const [second, setSecond] = useState(1);
  const count = outputs.length;
  if (count < 2) return null;
  const a = Math.min(first, count - 1);
  const b = Math.min(second, count - 1);
  const before = outputs[a];
  const after = outputs[b];
  const options = outputs.map((_, index) => (
    <option key={index} value={String(index)}>
      Column {index + 1}
    </option>
  ));
  const diff = before !== undefined && after !== undefined ? wordDiff(before, after) : undefined;
  return (
    <section aria-labelledby="output-diff-title" class="card output-diff">
      <h2 id="output-diff-title">Difference between two outputs</h2>
      <div class="inline-form">
        <label>
          Compare{' '}
          <select value={String(a)} onChange={(event) => setFirst(Number(event.currentTarget.value))}>
            {options}
          </select>
        </label>
        <label>
          with{' '}
          <select value={String(b)} onChange={(event) => setSecond(Number(event.currentTarget.value))}>
            {options}
          </select>
        </label>
      </div>
      {diff ? (
        <>
          <p role="status">{wordDiffSummary(diff, `Column ${a + 1}`, `Column ${b + 1}`)}</p>
          <section aria-label={`Column ${a + 1}'s output changed into column ${b + 1}'s`}>
            <pre class="word-diff">
              {diff.pieces.map((piece, index) =>
                piece.kind === 'same' ? (
                  piece.text
                ) : piece.kind === 'removed' ? (
                  <del key={index}>
                    <span class="visually-hidden">[removed: </span>
                    {piece.text}
                    <span class="visually-hidden">]</span>
                  </del>
                ) : (
                  <ins key={index}>
                    <span class="visually-hidden">[added: </span>
                    {piece.text}
                    <span class="visually-hidden">]</span>
                  </ins>
                ),
              )}
            </pre>
          </section>
        </>
      ) : (
        <p class="muted">Run both columns to compare their outputs.</p>
      )}
    </section>
  );
}
