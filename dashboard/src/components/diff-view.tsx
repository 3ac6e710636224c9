import { changedRowCount, type ComparableContent, contentDiff, type DiffRow, wordPieces } from '../logic/diff-rows';

/** A side-by-side diff of two versions' content, section by section; unchanged sections fold away. */
export function DiffView({
  before,
  after,
  beforeTitle,
  afterTitle,
}: {
  before: ComparableContent | undefined;
  after: ComparableContent;
  beforeTitle: string;
  afterTitle: string;
}) {
  const sections = contentDiff(before, after);
  const changed = sections.reduce((sum, section) => sum + changedRowCount(section.rows), 0);
  return (
    <div class="diff">
      <p role="status">
        {changed === 0
          ? `No differences between ${beforeTitle} and ${afterTitle}.`
          : `${changed} changed ${changed === 1 ? 'line' : 'lines'} between ${beforeTitle} and ${afterTitle}.`}
      </p>
      {sections.map((section) =>
        changedRowCount(section.rows) === 0 ? (
          <p key={section.title} class="muted">
            {section.title}: unchanged.
          </p>
        ) : (
          <table key={section.title} class="diff-table">
            <caption>{section.title}</caption>
            <colgroup>
              <col class="number" />
              <col />
              <col class="number" />
              <col />
            </colgroup>
            <thead>
              <tr>
                <th scope="col" colSpan={2}>
                  {beforeTitle}
                </th>
                <th scope="col" colSpan={2}>
                  {afterTitle}
                </th>
              </tr>
            </thead>
            <tbody>
              {section.rows.map((row, index) => (
                <Row key={index} row={row} />
              ))}
            </tbody>
          </table>
        ),
      )}
    </div>
  );
}

const SIGN = { same: '', changed: 'changed', removed: 'removed', added: 'added' } as const;

function Row({ row }: { row: DiffRow }) {
  const leftKind = row.kind === 'same' ? 'same' : row.left ? 'old' : 'empty';
  const rightKind = row.kind === 'same' ? 'same' : row.right ? 'new' : 'empty';
  // A changed line marks the words that changed inside it, not just the whole line.
  const words = row.kind === 'changed' && row.left && row.right ? wordPieces(row.left.text, row.right.text) : undefined;
  return (
    <tr class={`row-${row.kind}`}>
      <td class="line-number">{row.left?.line ?? ''}</td>
      <td class={`text ${leftKind}`}>
        {row.left && row.kind !== 'same' ? <span class="visually-hidden">{row.kind === 'changed' ? 'was: ' : `${SIGN[row.kind]}: `}</span> : null}
        {words
          ? words.map((piece, index) => (piece.kind === 'same' ? piece.text : piece.kind === 'removed' ? <del key={index}>{piece.text}</del> : null))
          : (row.left?.text ?? '')}
      </td>
      <td class="line-number">{row.right?.line ?? ''}</td>
      <td class={`text ${rightKind}`}>
        {row.right && row.kind !== 'same' ? <span class="visually-hidden">{row.kind === 'changed' ? 'now: ' : `${SIGN[row.kind]}: `}</span> : null}
        {words
          ? words.map((piece, index) => (piece.kind === 'same' ? piece.text : piece.kind === 'added' ? <ins key={index}>{piece.text}</ins> : null))
          : (row.right?.text ?? '')}
      </td>
    </tr>
  );
}
