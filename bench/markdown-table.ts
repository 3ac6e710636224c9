/** The benchmark documents' tables: a header, its rule, and one row per line, in Markdown. */
export function table(rows: readonly (readonly string[])[], header: readonly string[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A per-request figure: whole numbers as they are, others to two decimals. */
export const units = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(2));
