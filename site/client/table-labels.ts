/**
 * Names each table cell by its column (`data-label`, from the table's header), for the phone
 * layout, which shows a row as a block with each cell under its column's name. Cells whose markup
 * already names them keep their name; a header cell spanning columns names each of them.
 */
export function labelTableCells(root: ParentNode): void {
  for (const table of root.querySelectorAll<HTMLTableElement>('main table')) {
    const header = table.tHead?.rows[0];
    if (!header) continue;
    const names = [...header.cells].flatMap((cell) => Array<string>(cell.colSpan || 1).fill(cell.textContent?.trim() ?? ''));
    for (const body of table.tBodies) {
      for (const row of body.rows) {
        let column = 0;
        for (const cell of row.cells) {
          if (cell.tagName === 'TD' && !cell.dataset.label && names[column]) cell.dataset.label = names[column];
          column += cell.colSpan || 1;
        }
      }
    }
  }
}
