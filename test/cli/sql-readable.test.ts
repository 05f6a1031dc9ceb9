import { describe, expect, it } from 'vitest';
import { sql } from '../fixtures/sql-command.ts';

/** `odsnap sql` read by a person: a table whose numbers line up, and errors that say what to write instead. */

describe('odsnap sql for a reader', () => {
  it('right-aligns numbers in its table, so their digits line up by place, and leaves text to the left', async () => {
    const result = await sql(["SELECT 1 AS n, 12345.5 AS x, 'a' AS t, 3::DECIMAL(10, 2) AS d UNION ALL SELECT 100, 2, 'bcd', 1234.5 ORDER BY n"]);
    expect(result.code).toBe(0);
    expect(result.out.toString().split('\n')).toEqual([
      '  n        x  t          d',
      '───  ───────  ───  ───────',
      '  1  12345.5  a       3.00',
      '100      2.0  bcd  1234.50',
      '(2 rows)',
      '',
    ]);
  });

  it("keeps DuckDB's hint of the columns a misspelt one could be", async () => {
    const result = await sql(['SELECT transactio FROM rcn_transactions']);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/Referenced column "transactio" not found[^\n]*\nCandidate bindings: [^\n]*"transaction_gml_id"/);
  });

  it('answers a table that is not there with the one meant and every table there is, never a system table', async () => {
    const misspelt = await sql(['SELECT * FROM rcn_transaction']);
    expect(misspelt.code).toBe(1);
    expect(misspelt.err).toContain('Did you mean "rcn_transactions"?');
    expect(misspelt.err).toMatch(/The tables here: [^\n]*rcn_transactions, [^\n]*air_quality_stations\./);
    const unlike = await sql(['SELECT * FROM nothing_like_it']);
    expect(unlike.err).not.toContain('Did you mean');
    expect(unlike.err).toContain('The tables here: rcn_dictionaries, ');
  });
});
