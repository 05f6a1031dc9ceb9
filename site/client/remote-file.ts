import type { AsyncBuffer } from 'hyparquet';

/**
 * A published file read by HTTP range requests, its size known from the catalogue (no HEAD). A
 * range inside one already fetched is cut from it, so nothing is fetched twice.
 */
export class RemoteFile implements AsyncBuffer {
  private readonly held: { start: number; end: number; bytes: Promise<ArrayBuffer> }[] = [];
  constructor(
    readonly url: string,
    readonly byteLength: number,
  ) {}

  slice(start: number, end = this.byteLength): Promise<ArrayBuffer> {
    if (start < 0) start = Math.max(0, this.byteLength + start);
    const held = this.held.find((range) => range.start <= start && end <= range.end);
    if (held) return held.bytes.then((bytes) => bytes.slice(start - held.start, end - held.start));
    const range = { start, end, bytes: this.fetch(start, end) };
    this.held.push(range);
    range.bytes.catch(() => this.held.splice(this.held.indexOf(range), 1));
    return range.bytes;
  }

  private async fetch(start: number, end: number): Promise<ArrayBuffer> {
    const response = await fetch(this.url, { headers: { Range: `bytes=${start}-${end - 1}` } });
    if (!response.ok) throw new Error(`${new URL(this.url).pathname} answered ${response.status}`);
    const bytes = await response.arrayBuffer();
    // A host that ignores Range sends the whole file: keep it all.
    if (response.status === 200) {
      this.held.push({ start: 0, end: bytes.byteLength, bytes: Promise.resolve(bytes) });
      return bytes.slice(start, end);
    }
    return bytes;
  }
}
