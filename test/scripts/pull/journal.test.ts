import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Journal, JournalFull } from '../../../scripts/pull/journal.ts';
import { entriesOf, RawJson } from '../../../scripts/pull/journal-line.ts';
import { tempDir } from '../../fixtures/pull.ts';

/** Answers as an upstream may write them: spacing, escapes, number forms and key order that a parse and stringify would not keep. */
const ODD_TEXTS = [
  '{ "items" : [ {"id":1,"name":"Łódź \\u0142 \\"x\\"","v":1.0E+2} ],\t"total":1 }',
  '[1e3, -0.0, 12345678901234567890, "tab\\there", {"z":1,"a":2,"z":3}]',
  '"\\ud83d\\ude00 \u{1F600}"',
];

/** Appends a page a unit until `count` or the journal refuses one: how many went in, and why it stopped. */
function appendPages(journal: Journal, count: number): { n: number; error: unknown } {
  let n = 0;
  try {
    for (; n < count; n++) journal.append({ key: String(n), meta: null, answers: [new RawJson(page(n))] });
  } catch (error) {
    return { n, error };
  }
  return { n, error: undefined };
}

/** A page of a list: repetitive JSON, as the upstreams send. */
const page = (n: number) =>
  JSON.stringify({
    items: Array.from({ length: 100 }, (_, i) => ({
      id: `tx-${n * 100 + i}`,
      date: new Date(Date.UTC(2024, 0, 1) + (n * 100 + i) * 3_600_000).toISOString(),
      price: 1000 + ((n * 7919 + i * 104729) % 900_000),
      area: ((n + i) % 300) + 0.5,
      kind: ['flat', 'house', 'plot'][i % 3],
      address: { city: 'Kraków', street: `ul. Długa ${i % 50}`, postcode: '31-147' },
    })),
    pagination: { offset: n * 100, limit: 100, total: 1_000_000 },
  });

/** A unit's line as plain text, as appendPages writes it. */
const plainLineOf = (n: number) => Buffer.byteLength(`"${n}"\tnull\t{"answers":[${page(n)}]}\n`);
const payloadOf = (line: string) => line.split('\t')[2]!;
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').slice(0, -1);

async function journalFile(): Promise<string> {
  return join(await tempDir('journal'), 'journal.ndjson');
}

async function collect<T>(entries: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const entry of entries) all.push(entry);
  return all;
}

describe('Journal', () => {
  it('keeps answers packed on disk and reads back their texts byte for byte', async () => {
    const file = await journalFile();
    const journal = await Journal.open(file);
    journal.append({ key: 'a', meta: { records: 1 }, dataset: 'rcn', answers: ODD_TEXTS.map((text) => new RawJson(text)) });
    journal.append({ key: 'b', meta: null, answers: [{ parsed: true }] });
    journal.close();

    for (const line of lines(file)) expect(payloadOf(line)).toMatch(/^~\d+:[A-Za-z0-9+/=]+$/);
    const reopened = await Journal.open(file);
    expect(reopened.meta('a')).toEqual({ records: 1 });
    expect(reopened.read('a')).toMatchObject({ key: 'a', dataset: 'rcn', texts: ODD_TEXTS, answers: ODD_TEXTS.map((text) => JSON.parse(text)) });
    expect((await collect(reopened.entries())).map((entry) => entry.texts)).toEqual([ODD_TEXTS, ['{"parsed":true}']]);
    reopened.close();
    expect((await collect(entriesOf(file))).map((entry) => entry.texts)).toEqual([ODD_TEXTS, ['{"parsed":true}']]);
  });

  it('reads a plain journal an older odsnap wrote, and packs what it appends to it', async () => {
    const file = await journalFile();
    const plain = `"old"\t{"records":3}\t{"dataset":"rcn","answers":[${ODD_TEXTS.join(',')}]}\n`;
    writeFileSync(file, plain);
    const journal = await Journal.open(file);
    expect(journal.units).toBe(1);
    expect(journal.read('old')).toMatchObject({ key: 'old', meta: { records: 3 }, dataset: 'rcn', texts: ODD_TEXTS });
    journal.append({ key: 'new', meta: null, answers: [new RawJson(ODD_TEXTS[0]!)] });
    const entries = await collect(journal.entries());
    journal.close();

    expect(entries.map((entry) => [entry.key, entry.texts])).toEqual([
      ['old', ODD_TEXTS],
      ['new', [ODD_TEXTS[0]]],
    ]);
    expect(entries[0]!.bytes).toBe(Buffer.byteLength(plain));
    expect(readFileSync(file, 'utf8').startsWith(plain)).toBe(true);
    expect(payloadOf(lines(file)[1]!)).toMatch(/^~/);
  });

  it('reads a packed journal an odsnap wrote before packed lines said their plain length', async () => {
    const file = await journalFile();
    const payload = `{"dataset":"rcn","answers":[${page(0)}]}`;
    writeFileSync(file, `"old"\t1\t~${deflateRawSync(payload).toString('base64')}\n`);
    const journal = await Journal.open(file);
    expect(journal.read('old')?.texts).toEqual([page(0)]);
    journal.append({ key: 'new', meta: 2, answers: [new RawJson(page(1))] });
    expect((await collect(journal.entries())).map((entry) => [entry.key, entry.texts])).toEqual([
      ['old', [page(0)]],
      ['new', [page(1)]],
    ]);
    journal.close();
  });

  it('cuts off a torn packed last line on open, and a reader passes over it', async () => {
    const file = await journalFile();
    const journal = await Journal.open(file);
    journal.append({ key: 'whole', meta: 1, answers: [new RawJson(page(0))] });
    const whole = statSync(file).size;
    journal.append({ key: 'torn', meta: 2, answers: [new RawJson(page(1))] });
    journal.close();
    expect(payloadOf(lines(file)[1]!)).toMatch(/^~/);
    // Killed midway through the second line's packed payload.
    truncateSync(file, whole + Math.floor((statSync(file).size - whole) / 2));

    expect((await collect(entriesOf(file))).map((entry) => entry.key)).toEqual(['whole']);
    const reopened = await Journal.open(file);
    expect(statSync(file).size).toBe(whole);
    expect([reopened.has('whole'), reopened.has('torn')]).toEqual([true, false]);
    reopened.append({ key: 'torn', meta: 2, answers: [new RawJson(page(1))] });
    expect(reopened.read('torn')?.texts).toEqual([page(1)]);
    expect((await collect(reopened.entries())).map((entry) => entry.key)).toEqual(['whole', 'torn']);
    reopened.close();
  });

  it('takes a fraction of the plain size on disk for repetitive answers, and gives each entry its plain length', async () => {
    const file = await journalFile();
    const journal = await Journal.open(file);
    let plain = 0;
    for (let n = 0; n < 50; n++) {
      const key = `transactions?offset=${n * 100}`;
      journal.append({ key, meta: { records: 100 }, dataset: 'rcn', answers: [new RawJson(page(n))] });
      plain += Buffer.byteLength(`${JSON.stringify(key)}\t{"records":100}\t{"dataset":"rcn","answers":[${page(n)}]}\n`);
    }
    const entries = await collect(journal.entries());
    journal.close();

    // The length as plain text bounds the values a line holds (--max-value), however small it is on disk.
    expect(entries.reduce((sum, entry) => sum + entry.bytes, 0)).toBe(plain);
    const ratio = statSync(file).size / plain;
    expect(ratio).toBeLessThan(0.2);
  });

  it('counts --max-journal on the packed lines it writes to disk', async () => {
    const file = await journalFile();
    const plainLine = plainLineOf(0);
    const journal = await Journal.open(file, { maxBytes: 4 * plainLine });
    const { n, error } = appendPages(journal, 100);
    journal.close();

    // Plain, four units filled it.
    expect(n).toBeGreaterThan(10);
    expect(error).toBeInstanceOf(JournalFull);
    expect((error as Error).message).toMatch(/the journal would grow past .* \(--max-journal\) with \d+, after \d+ units; the pull stopped/);
    expect(statSync(file).size).toBeLessThanOrEqual(4 * plainLine);
  });

  it('stops at --max-answers counted on the answers as read, however small they pack', async () => {
    const file = await journalFile();
    const plainLine = plainLineOf(0);
    const journal = await Journal.open(file, { maxPlain: { bytes: 4.5 * plainLine, name: '--max-answers' } });
    const { n, error } = appendPages(journal, 100);
    journal.close();

    // On disk the four units take a fraction of one plain line: a limit on disk alone would let all 100 in.
    expect(n).toBe(4);
    expect(statSync(file).size).toBeLessThan(plainLine);
    expect(error).toBeInstanceOf(JournalFull);
    expect((error as Error).message).toMatch(
      /the upstream's answers would take more than .* once read \(--max-answers\) with 4, after 4 units; the pull stopped/,
    );
  });

  it('counts the answers already in a journal it opens again against --max-answers', async () => {
    const file = await journalFile();
    const plainLine = plainLineOf(0);
    const first = await Journal.open(file, { maxPlain: { bytes: 4.5 * plainLine, name: '--max-answers' } });
    for (let n = 0; n < 3; n++) first.append({ key: String(n), meta: null, answers: [new RawJson(page(n))] });
    first.close();

    const resumed = await Journal.open(file, { maxPlain: { bytes: 4.5 * plainLine, name: 'the free space' } });
    resumed.append({ key: '3', meta: null, answers: [new RawJson(page(3))] });
    expect(() => resumed.append({ key: '4', meta: null, answers: [new RawJson(page(4))] })).toThrow(
      /would take more than .* once read \(the free space\) with 4, after 4 units/,
    );
    resumed.close();
  });

  it("reads each unit's meta back from its line, however long, and of a unit written twice the later", async () => {
    const file = await journalFile();
    const long = { base: 'https://example.org', note: `ł${'x'.repeat(10_000)}\t` };
    const journal = await Journal.open(file);
    journal.append({ key: 'short', meta: { records: 1 }, answers: [new RawJson(page(0))] });
    journal.append({ key: 'long', meta: long, answers: [new RawJson(page(1))] });
    journal.append({ key: 'twice', meta: { records: 2 }, answers: [new RawJson(page(2))] });
    journal.append({ key: 'twice', meta: { records: 3 }, answers: [new RawJson(page(3))] });
    const expected = [{ records: 1 }, long, { records: 3 }];
    expect([...journal.metas()]).toEqual(expected);
    journal.close();

    const reopened = await Journal.open(file);
    expect(reopened.units).toBe(3);
    expect([reopened.meta('short'), reopened.meta('long'), reopened.meta('twice'), reopened.meta('none')]).toEqual([...expected, undefined]);
    expect([...reopened.metas()]).toEqual(expected);
    expect((await collect(reopened.entries())).map((entry) => [entry.key, entry.meta])).toEqual([
      ['short', { records: 1 }],
      ['long', long],
      ['twice', { records: 3 }],
    ]);
    reopened.close();
  });
});
