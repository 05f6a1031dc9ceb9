/** Rows as an aligned text table, for reading in a terminal: a header, a rule, the rows; numbers right-aligned when asked. */
export function textTable(columns: readonly { readonly title: string; readonly right?: boolean }[], rows: readonly (readonly string[])[]): string {
  const all = [columns.map((c) => c.title), ...rows];
  const widths = columns.map((_, i) => all.reduce((width, row) => Math.max(width, row[i]!.length), 0));
  const line = (row: readonly string[]) =>
    row
      .map((text, i) => (columns[i]!.right ? text.padStart(widths[i]!) : text.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(all[0]!), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
