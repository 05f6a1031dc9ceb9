import { afterEach, describe, expect, it, vi } from 'vitest';
import { RemoteFile } from '../../../site/client/remote-file.ts';

/** A file of 1000 bytes (byte i is i % 256) served by range, counting the ranges asked. */
function served() {
  const asked: string[] = [];
  vi.stubGlobal('fetch', async (_url: string, init: { headers: { Range: string } }) => {
    asked.push(init.headers.Range);
    const [, from, to] = /bytes=(\d+)-(\d+)/.exec(init.headers.Range)!;
    const bytes = Uint8Array.from({ length: Number(to) - Number(from) + 1 }, (_, i) => (Number(from) + i) % 256);
    return new Response(bytes, { status: 206 });
  });
  return { asked, file: new RemoteFile('https://example.org/a.parquet', 1000) };
}
const values = async (bytes: Promise<ArrayBuffer>) => [...new Uint8Array(await bytes)];
const expected = (start: number, end: number) => Array.from({ length: end - start }, (_, i) => (start + i) % 256);

describe('a published file read by range', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('keeps the footer, lets read ranges go, and keeps the parts of a range not released, fetching nothing twice', async () => {
    const { asked, file } = served();
    expect(await values(file.slice(-100))).toEqual(expected(900, 1000));
    expect(await values(file.slice(100, 400))).toEqual(expected(100, 400));
    // Columns of 100–200 and 300–400 read; 200–300 (a column the fetch spanned) is not.
    file.release(100, 200);
    file.release(300, 400);
    expect(await values(file.slice(950, 960))).toEqual(expected(950, 960));
    expect(await values(file.slice(220, 280))).toEqual(expected(220, 280));
    expect(asked).toEqual(['bytes=900-999', 'bytes=100-399']);
    // Released bytes are no longer held: asked again, they are fetched.
    expect(await values(file.slice(100, 200))).toEqual(expected(100, 200));
    expect(asked).toHaveLength(3);
    // The footer is never let go.
    file.release(0, 1000);
    expect(await values(file.slice(-50))).toEqual(expected(950, 1000));
    expect(asked).toHaveLength(3);
  });
});
