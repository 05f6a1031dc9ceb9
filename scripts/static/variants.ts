import { brotliCompressSync, constants, crc32, deflateRawSync, gzipSync } from 'node:zlib';

/**
 * The compressed variants written beside each JSON file: `.gz` and `.br`. Brotli 5 and gzip 6:
 * on the tree's JSON they come within 1 % of brotli 9 and gzip 9 at a fifth to a tenth of the
 * time, which matters for hundreds of thousands of files.
 *
 * A file may have an ending that a later build replaces (a register page's pagination, whose
 * total changes on every page whenever the list grows). Its variants are made in two parts: the
 * rest compressed and flushed to a byte boundary, then the ending stored as it is (a stored
 * deflate block; an uncompressed brotli meta-block). A new ending then replaces the stored one
 * in the variants of the tree in use, with no compression at all, and the result is the same
 * bytes a build from nothing makes. The ending costs its own length (a few hundred bytes).
 *
 * Synchronous: they run on the tree's writer threads (tree-writers.ts), one file after another.
 */
export interface Variant {
  readonly suffix: '.gz' | '.br';
  /** The variant of `data`, whose last `endingBytes` bytes are stored as they are. */
  compress(data: Buffer, endingBytes: number): Buffer;
  /** The variant of `data` made from the variant of the same data with ending `was`; undefined if it was not made that way. */
  replaceEnding(old: Buffer, was: Buffer, data: Buffer, endingBytes: number): Buffer | undefined;
}

/** Longest ending stored as it is: one stored deflate block, one four-nibble brotli meta-block. */
const MAX_ENDING = 65_535;

// gzip (RFC 1952) around raw deflate (RFC 1951): no name, no time, unknown OS.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
const GZIP_TRAILER = 8;
/** A final stored block: BFINAL 1, BTYPE 00, then LEN and its complement, little-endian. */
const storedBlock = (bytes: Buffer) => {
  const header = Buffer.from([1, bytes.length & 0xff, bytes.length >> 8, ~bytes.length & 0xff, (~bytes.length >> 8) & 0xff]);
  return Buffer.concat([header, bytes]);
};
const gzipTrailer = (data: Buffer) => {
  const trailer = Buffer.alloc(GZIP_TRAILER);
  trailer.writeUInt32LE(crc32(data), 0);
  trailer.writeUInt32LE(data.length % 2 ** 32, 4);
  return trailer;
};

const gzip: Variant = {
  suffix: '.gz',
  compress(data, endingBytes) {
    if (endingBytes <= 0 || endingBytes > MAX_ENDING) return gzipSync(data, { level: 6 });
    const split = data.length - endingBytes;
    // Flushed, not finished: the deflate stream goes on with the stored block.
    const body = deflateRawSync(data.subarray(0, split), { level: 6, finishFlush: constants.Z_SYNC_FLUSH });
    return Buffer.concat([GZIP_HEADER, body, storedBlock(data.subarray(split)), gzipTrailer(data)]);
  },
  replaceEnding(old, was, data, endingBytes) {
    const stored = storedBlock(was);
    const end = old.length - GZIP_TRAILER;
    if (endingBytes > MAX_ENDING || end - stored.length < GZIP_HEADER.length || !old.subarray(end - stored.length, end).equals(stored)) return undefined;
    return Buffer.concat([old.subarray(0, end - stored.length), storedBlock(data.subarray(data.length - endingBytes)), gzipTrailer(data)]);
  },
};

/** A brotli (RFC 7932) meta-block holding bytes as they are: ISLAST 0, MNIBBLES 4, MLEN - 1, ISUNCOMPRESSED 1, padded to a byte. */
const uncompressedMetaBlock = (bytes: Buffer) => {
  const bits = ((bytes.length - 1) << 3) | (1 << 19);
  return Buffer.concat([Buffer.from([bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff]), bytes]);
};
/** The last meta-block, empty: ISLAST 1, ISLASTEMPTY 1. */
const BROTLI_END = Buffer.from([0x03]);
const brotliOptions = (size: number) => ({ params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: size } });

const brotli: Variant = {
  suffix: '.br',
  compress(data, endingBytes) {
    if (endingBytes <= 0 || endingBytes > MAX_ENDING) return brotliCompressSync(data, brotliOptions(data.length));
    const split = data.length - endingBytes;
    // A flush ends on a byte boundary (the encoder pads with an empty metadata block).
    const head = brotliCompressSync(data.subarray(0, split), { ...brotliOptions(data.length), finishFlush: constants.BROTLI_OPERATION_FLUSH });
    return Buffer.concat([head, uncompressedMetaBlock(data.subarray(split)), BROTLI_END]);
  },
  replaceEnding(old, was, data, endingBytes) {
    const stored = Buffer.concat([uncompressedMetaBlock(was), BROTLI_END]);
    if (endingBytes > MAX_ENDING || old.length <= stored.length || !old.subarray(old.length - stored.length).equals(stored)) return undefined;
    return Buffer.concat([old.subarray(0, old.length - stored.length), uncompressedMetaBlock(data.subarray(data.length - endingBytes)), BROTLI_END]);
  },
};

export const VARIANTS: readonly Variant[] = [gzip, brotli];

/** Whether a file of the tree gets its variants unless its writer says otherwise: JSON, JSON-LD and Atom do. */
export const hasVariants = (path: string) => path.endsWith('.json') || path.endsWith('.jsonld') || path.endsWith('.atom');
