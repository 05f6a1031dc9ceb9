import { closeSync, createReadStream, openSync, renameSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { compareKeys, keyOf, type SortKey } from '../row-order.ts';
import { RunReader } from './staged-rows.ts';

/**
 * Staged rows filled in place, line by line: from a function, or from a second file of lines read
 * beside them in the same order (a derived column's answers, see TableWriter), so that memory holds
 * a chunk of each file, never a table.
 */

/**
 * Fills each staged row from the line of `valuesPath` of the same key (or from none), both files in
 * the order of `key` (see sortStagedRows): the two are read side by side, a chunk of each at a time,
 * so memory holds neither file, whatever their size. Of lines of `valuesPath` with equal keys, the
 * last is the one given.
 */
export async function joinStagedRows(
  path: string,
  valuesPath: string,
  key: readonly string[],
  fill: (row: Record<string, unknown>, values: Readonly<Record<string, unknown>> | undefined) => void,
): Promise<void> {
  const values = new RunReader(valuesPath, key, 0);
  let found: { key: SortKey; row: Record<string, unknown> } | undefined;
  await fillStagedRows(path, (row) => {
    const wanted = keyOf(row, key);
    if (!found || compareKeys(found.key, wanted) !== 0) {
      found = undefined;
      while (values.line && compareKeys(values.key, wanted) < 0) values.advance();
      while (values.line && compareKeys(values.key, wanted) === 0) {
        found = { key: values.key, row: values.row };
        values.advance();
      }
    }
    fill(row, found?.row);
  });
  // Read to its end, so that its file is closed.
  while (values.line) values.advance();
}

/** Rewrites a staged file with `fill` applied to each row, line by line. */
export async function fillStagedRows(path: string, fill: (row: Record<string, unknown>) => void): Promise<void> {
  const filled = `${path}.filled`;
  const output = openSync(filled, 'w');
  try {
    let buffer: string[] = [];
    let bytes = 0;
    for await (const text of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
      const row = JSON.parse(text) as Record<string, unknown>;
      fill(row);
      const line = JSON.stringify(row);
      buffer.push(line);
      bytes += line.length;
      if (bytes >= 4 * 1024 * 1024) {
        writeSync(output, buffer.join('\n') + '\n');
        buffer = [];
        bytes = 0;
      }
    }
    if (buffer.length) writeSync(output, buffer.join('\n') + '\n');
  } finally {
    closeSync(output);
  }
  renameSync(filled, path);
}
