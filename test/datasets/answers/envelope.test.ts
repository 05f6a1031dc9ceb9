import { describe, expect, it } from 'vitest';
import { datasets } from '../../../datasets/index.ts';
import { learnEnvelope, learnNext, type EnvelopeSeen } from '../../../datasets/answers/envelope.ts';
import { escapesIn, escapesOf, withEscapes } from '../../../datasets/vocabulary/written.ts';

const endpoint = datasets.flatMap((d) => d.endpoints).find((e) => e.fullPath === '/api/public/rcn/transactions')!;
const seen = (own: Record<string, string>, facts: EnvelopeSeen['facts']): EnvelopeSeen => ({ text: '{}', own, facts });

describe('what a pull learns of an envelope', () => {
  it('keeps a key with the same text in every answer as written, and one that counts the answer as the fact it follows', () => {
    const learned = learnEnvelope([
      seen({ meta: '{"v":"1.40"}', totalPages: '3', totalElements: '250' }, { total: 250, pageSize: 100, page: 1, count: 100 }),
      seen({ meta: '{"v":"1.40"}', totalPages: '250', totalElements: '250' }, { total: 250, pageSize: 1, page: 1, count: 1 }),
      seen({ meta: '{"v":"1.40"}', totalPages: '1', totalElements: '7' }, { total: 7, pageSize: 100, page: 1, count: 7 }),
    ]);
    expect(learned.constant).toEqual({ meta: { v: '1.40' } });
    expect(learned.template!.derived).toEqual({ totalPages: 'pages', totalElements: 'total' });
  });

  it('takes a value that never changed for a constant, though a fact that never changed equals it', () => {
    const learned = learnEnvelope([seen({ version: '1' }, { page: 1, pages: 1 }), seen({ version: '1' }, { page: 1 })]);
    expect(learned.constant).toEqual({ version: 1 });
    expect(learned.template!.derived).toBeUndefined();
  });

  it('takes a key for the total where a page filtered to nothing showed it follow the total', () => {
    const learned = learnEnvelope([
      seen({ totalElements: '198', apiLevel: '198' }, { total: 198, pageSize: 100, page: 1, count: 100 }),
      seen({ totalElements: '0', apiLevel: '198' }, { total: 0, pageSize: 1, page: 1, count: 0 }),
    ]);
    expect(learned.template!.derived).toEqual({ totalElements: 'total' });
    expect(learned.constant).toEqual({ apiLevel: 198 });
  });

  it('names, and leaves out, a key that equals a total no answer showed change: a count and a constant look alike', () => {
    const learned = learnEnvelope([
      seen({ totalElements: '198' }, { total: 198, pageSize: 100, page: 1, count: 100 }),
      seen({ totalElements: '198' }, { total: 198, pageSize: 1, page: 1, count: 1 }),
    ]);
    expect(learned.template!.derived).toBeUndefined();
    expect(learned.template!.unknown).toEqual(['totalElements']);
  });

  it('leaves out, and names, a key that varies by no fact, or is missing from an answer', () => {
    const learned = learnEnvelope([seen({ requestId: '"a1"', served: '1' }, { count: 5 }), seen({ requestId: '"b2"' }, { count: 6 })]);
    expect(learned.template!.unknown).toEqual(['requestId', 'served']);
  });
});

describe('what a pull learns of `next`', () => {
  const base = 'https://api.example.com/open';
  const asked = (next: string) => ({ asked: 'offset=0&limit=1&version=v1', limit: 1, offset: 1, next });

  it('tells the order asked from the order the spec lists, by a page asked with offset before limit', () => {
    expect(learnNext([asked(`${base}/api/public/rcn/transactions?offset=1&limit=1&version=v1`)], endpoint, base)).toEqual({ form: 'absolute', order: 'asked' });
    expect(learnNext([asked(`${base}/api/public/rcn/transactions?limit=1&offset=1&version=v1`)], endpoint, base)).toEqual({
      form: 'absolute',
      order: 'declared',
    });
  });

  it('reads a path on the public address, or a query alone', () => {
    expect(learnNext([asked('/open/api/public/rcn/transactions?offset=1&limit=1&version=v1')], endpoint, base)).toEqual({ form: 'path', order: 'asked' });
    expect(learnNext([asked('?limit=1&offset=1&version=v1')], endpoint, base)).toEqual({ form: 'query', order: 'declared' });
  });

  it('learns nothing from a link none of its forms writes', () => {
    expect(learnNext([asked(`${base}/api/public/rcn/transactions?page=2`)], endpoint, base)).toBeUndefined();
  });
});

describe('string escapes an upstream chooses', () => {
  it('are learned when every answer wrote them, and none when one did not', () => {
    expect(escapesOf(escapesIn('{"uri":"http:\\/\\/x\\/a","name":"\\u017c"}'))).toEqual({ slash: true, nonAscii: 'lower' });
    expect(escapesOf(escapesIn('{"b":"http://x/b"}', escapesIn('{"a":"http:\\/\\/x\\/a"}')))).toEqual({});
    // Nothing to tell either way: what an earlier pull learned stands.
    expect(escapesOf(escapesIn('{"n":1}'), { escapes: { slash: true } })).toEqual({ slash: true });
  });

  it('are written over a text, leaving escapes already written as they are', () => {
    expect(withEscapes('{"a":"x/y","b":"x\\/y","c":"\\\\/","d":"żółw"}', { slash: true, nonAscii: 'upper' })).toBe(
      '{"a":"x\\/y","b":"x\\/y","c":"\\\\\\/","d":"\\u017C\\u00F3\\u0142w"}',
    );
  });
});
