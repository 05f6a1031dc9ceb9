import type { AsyncBuffer } from 'hyparquet';

/**
 * A published file read by HTTP range requests, its size known from the catalogue (no HEAD). A
 * range inside one already fetched is cut from it, so nothing is fetched twice. The first read
 * (the footer, which brings a small file whole) and a whole file from a host that ignores Range
 * are kept; other ranges only until their bytes are released as read (see `release`).
 */
export class RemoteFile implements AsyncBuffer {
  private readonly held: { start: number; end: number; bytes: Promise<ArrayBuffer>; kept: boolean }[] = [];
  constructor(
    readonly url: string,
    readonly byteLength: number,
  ) {}

  slice(start: number, end = this.byteLength): Promise<ArrayBuffer> {
    if (start < 0) start = Math.max(0, this.byteLength + start);
    const held = this.held.find((range) => range.start <= start && end <= range.end);
    if (held) return held.bytes.then((bytes) => bytes.slice(start - held.start, end - held.start));
    const range = { start, end, bytes: this.fetch(start, end), kept: this.held.length === 0 };
    this.held.push(range);
    range.bytes.catch(() => this.drop(range));
    return range.bytes;
  }

  /**
   * These bytes are read for good (their columns decoded and kept by the caller): ranges fetched
   * for them are let go, all but the parts (columns a fetch spanned that were not asked for) that
   * may still be asked.
   */
  release(start: number, end: number): void {
    for (const range of [...this.held]) {
      if (range.kept || range.end <= start || end <= range.start) continue;
      this.drop(range);
      const rest = [
        { start: range.start, end: Math.min(range.end, start) },
        { start: Math.max(range.start, end), end: range.end },
      ].filter((piece) => piece.start < piece.end);
      for (const piece of rest)
        this.held.push({ ...piece, kept: false, bytes: range.bytes.then((bytes) => bytes.slice(piece.start - range.start, piece.end - range.start)) });
    }
  }

  private drop(range: (typeof this.held)[number]): void {
    const index = this.held.indexOf(range);
    if (index >= 0) this.held.splice(index, 1);
  }

  private async fetch(start: number, end: number): Promise<ArrayBuffer> {
    const response = await fetch(this.url, { headers: { Range: `bytes=${start}-${end - 1}` } });
    if (!response.ok) throw new Error(`${new URL(this.url).pathname} answered ${response.status}`);
    const bytes = await response.arrayBuffer();
    // A host that ignores Range sends the whole file: keep it all.
    if (response.status === 200) {
      this.held.push({ start: 0, end: bytes.byteLength, bytes: Promise.resolve(bytes), kept: true });
      return bytes.slice(start, end);
    }
    return bytes;
  }
}
