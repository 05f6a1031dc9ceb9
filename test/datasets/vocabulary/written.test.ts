import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instantMs } from '../../../core/zoned-time.ts';
import { elementSpans, memberSpans, minify, withElements, withoutMembers } from '../../../datasets/vocabulary/json-text.ts';
import { renderContext } from '../../../datasets/vocabulary/render.ts';
import { inTimeZone, relativeText, resolvedText, stringify, WrittenJson } from '../../../datasets/vocabulary/written.ts';

/** Any JSON value, keys in any order, strings with escapes and non-ASCII. */
const json = fc.jsonValue();
/** The same value as other writers write it: indented, `\/` for `/`. */
const writers: ((value: unknown) => string)[] = [(v) => JSON.stringify(v), (v) => JSON.stringify(v, null, 2), (v) => JSON.stringify(v).replaceAll('/', '\\/')];

describe('JSON read as text', () => {
  it('finds each element of an array, as written, however the array was written', () => {
    fc.assert(
      fc.property(fc.array(json), fc.constantFrom(...writers), (values, write) => {
        const text = write(values);
        expect(elementSpans(text, 0).map(([start, end]) => JSON.parse(text.slice(start, end)))).toEqual(JSON.parse(text));
      }),
    );
  });

  it('finds each member of an object in the order written, and leaves out the ones asked', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json), fc.constantFrom(...writers), (object, write) => {
        const text = write(object);
        const members = memberSpans(text, 0);
        expect(members.map(([key]) => key)).toEqual(Object.keys(JSON.parse(text)));
        const [first] = members;
        if (!first) return;
        const rest = JSON.parse(withoutMembers(text, new Set([first[0]])));
        const expected = JSON.parse(text);
        delete expected[first[0]];
        expect(rest).toEqual(expected);
      }),
    );
  });

  it('drops whitespace between tokens and nothing else: key order, number text and escapes stay', () => {
    expect(minify('{ "b" : 1.50 ,\n  "a":[ 1e3 , "x \\" y\\/z" ] }')).toBe('{"b":1.50,"a":[1e3,"x \\" y\\/z"]}');
    fc.assert(
      fc.property(json, (value) => {
        expect(minify(JSON.stringify(value, null, 2))).toBe(JSON.stringify(value));
      }),
    );
  });

  it('keeps the elements of an array chosen, each as written, and the rest of the text as it is', () => {
    const page = '{"pagination":{"total":3},"items":[ {"id":"a","p":1.50} , {"id":"b"},{"id":"c","s":"x\\/y"} ],"meta":1}';
    expect(withElements(page, 'items', (i) => i !== 1)).toBe('{"pagination":{"total":3},"items":[{"id":"a","p":1.50},{"id":"c","s":"x\\/y"}],"meta":1}');
    expect(withElements(page, 'items', () => false)).toBe('{"pagination":{"total":3},"items":[],"meta":1}');
  });
});

describe('a record as its upstream wrote it', () => {
  const base = 'https://opendata.example.org/city';

  it('keeps its links relative to {base_url}, the rest of each link as written, and serves them on any base', () => {
    const written = '{"uri":"https://opendata.example.org/city/api/public/rcn/transactions/PL:1+2","price":1.50,"home":"https://elsewhere.example/x"}';
    const stored = relativeText(written, [base]);
    expect(stored).toBe('{"uri":"{base_url}/api/public/rcn/transactions/PL:1+2","price":1.50,"home":"https://elsewhere.example/x"}');
    expect(resolvedText(stored, renderContext({ baseUrl: base }))).toBe(written);
    expect(resolvedText(stored, renderContext({ baseUrl: 'http://localhost:4321' }))).toBe(written.replace(base, 'http://localhost:4321'));
  });

  it('reads links written with \\/ as links too', () => {
    const stored = relativeText('{"uri":"https:\\/\\/opendata.example.org\\/city\\/api\\/public\\/x"}', [base]);
    expect(JSON.parse(resolvedText(stored, renderContext({ baseUrl: 'http://m' })))).toEqual({ uri: 'http://m/api/public/x' });
  });

  it('is spliced into a body as its text, where JSON.stringify would write its value', () => {
    const item = new WrittenJson('{"b":1.50,"a":1e3}');
    expect(stringify({ items: [item, item], n: 1 })).toBe('{"items":[{"b":1.50,"a":1e3},{"b":1.50,"a":1e3}],"n":1}');
    expect(JSON.stringify({ item })).toBe('{"item":{"b":1.5,"a":1000}}');
  });

  it("shows its instants in another zone in the upstream's own form: Z or offset, seconds and fraction as written", () => {
    const warsaw = renderContext({ baseUrl: base, timeZone: 'Europe/Warsaw' });
    const keys = new Set(['startedAt', 'finishedAt']);
    expect(inTimeZone('{"startedAt":"2025-07-01T10:00:00.000Z","finishedAt":"2025-01-01T23:30Z","other":"2025-07-01T10:00:00Z"}', keys, warsaw)).toBe(
      '{"startedAt":"2025-07-01T12:00:00.000+02:00","finishedAt":"2025-01-02T00:30+01:00","other":"2025-07-01T10:00:00Z"}',
    );
    expect(inTimeZone('{"startedAt":"2025-07-01T10:00:00+0000"}', keys, warsaw)).toBe('{"startedAt":"2025-07-01T12:00:00+0200"}');
  });

  it('writes offsets in a zone as a pull learned the upstream writes them there, whatever its UTC form', () => {
    const keys = new Set(['readAt']);
    const zoneOffsets = { nonZero: '+hhmm', zero: 'Z' } as const;
    const warsaw = renderContext({ baseUrl: base, timeZone: 'Europe/Warsaw', zoneOffsets });
    const reykjavik = renderContext({ baseUrl: base, timeZone: 'Atlantic/Reykjavik', zoneOffsets });
    expect(inTimeZone('{"readAt":"2025-07-01T10:00:00+00:00"}', keys, warsaw)).toBe('{"readAt":"2025-07-01T12:00:00+0200"}');
    expect(inTimeZone('{"readAt":"2025-07-01T10:00:00+00:00"}', keys, reykjavik)).toBe('{"readAt":"2025-07-01T10:00:00Z"}');
    expect(warsaw.time(Date.UTC(2025, 0, 1, 12))).toBe('2025-01-01T13:00:00+0100');
    expect(reykjavik.time(Date.UTC(2025, 0, 1, 12))).toBe('2025-01-01T12:00:00Z');
    // Asked in UTC, the upstream writes what it writes unasked: the stored form.
    expect(renderContext({ baseUrl: base, timeZone: 'UTC', zoneOffsets }).time(Date.UTC(2025, 0, 1, 12))).toBe('2025-01-01T12:00:00+00:00');
  });
});

describe('an instant in any form ISO 8601 allows', () => {
  it.each([
    ['2025-07-01T10:00:00Z', '2025-07-01T10:00:00.000Z'],
    ['2025-07-01T10:00Z', '2025-07-01T10:00:00.000Z'],
    ['2025-07-01T12:00:00+0200', '2025-07-01T10:00:00.000Z'],
    ['2025-07-01T12:00:00+02', '2025-07-01T10:00:00.000Z'],
    ['2025-07-01T10:00:00,5Z', '2025-07-01T10:00:00.500Z'],
    ['2025-07-01T10:00:00.123456-01:30', '2025-07-01T11:30:00.123Z'],
  ])('reads %s', (text, iso) => expect(new Date(instantMs(text)).toISOString()).toBe(iso));

  it.each(['2025-07-01', '2025-02-30T10:00:00Z', '2025-07-01 10:00:00Z', '2025-07-01T10:00:00', 'yesterday'])('refuses %s', (text) =>
    expect(instantMs(text)).toBeNaN(),
  );
});
