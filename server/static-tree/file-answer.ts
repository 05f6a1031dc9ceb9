import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { matches, negotiate, type Encoding } from '../http/respond.ts';
import type { BigFiles } from './big-files.ts';
import type { TreeFile, Variant } from './tree-files.ts';

/**
 * Answering with a file of the tree: the variant the client takes, a 304 when it has it, and a
 * byte range (206, or 416 past its end), so Parquet files can be read remotely.
 */

/** Ranges (or whole files) up to this size are read at once and sent as one buffer; longer ones stream. */
const READ_AT_ONCE_BYTES = 1024 * 1024;

/** The precompressed variant in the encoding chosen, when the tree has one, else the file as it is. */
export const variantIn = (file: TreeFile, encoding: Encoding): Variant => (encoding === 'br' && file.br) || (encoding === 'gzip' && file.gzip) || file.identity;

/** A single byte range of a `size`-byte file, or 'unsatisfiable'; undefined to send the whole file. */
function rangeOf(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges, or another unit: the whole file is a valid answer.
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (start > end || start >= size) return 'unsatisfiable';
  }
  return [start, end];
}

/** Answers with a file of the tree: from memory when small, else by `bigFiles`. */
export async function sendFile(request: IncomingMessage, response: ServerResponse, file: TreeFile, bigFiles: BigFiles): Promise<number> {
  const rangeHeader = request.headers.range;
  // Ranges are of the file as it is; only whole answers come compressed.
  const variant = variantIn(file, rangeHeader ? 'identity' : negotiate(request.headers['accept-encoding']));
  if (matches(request.headers['if-none-match'], variant.etag)) {
    response.writeHead(304, variant.headers).end();
    return 0;
  }
  let range = rangeOf(rangeHeader, variant.size);
  const ifRange = request.headers['if-range'];
  if (range && ifRange && ifRange !== variant.etag) range = undefined;
  if (range === 'unsatisfiable') {
    response.writeHead(416, [...variant.headers, 'content-range', `bytes */${variant.size}`, 'content-length', '0']).end();
    return 0;
  }
  const [start, end] = range ?? [0, variant.size - 1];
  const length = Math.max(0, end - start + 1);
  response.writeHead(
    range ? 206 : 200,
    range
      ? [...variant.headers, 'content-length', String(length), 'content-range', `bytes ${start}-${end}/${variant.size}`]
      : [...variant.headers, 'content-length', String(length)],
  );
  if (request.method === 'HEAD' || length === 0) {
    response.end();
    return 0;
  }
  if (variant.content) {
    response.end(range ? variant.content.subarray(start, end + 1) : variant.content);
    return length;
  }
  if (length <= READ_AT_ONCE_BYTES) {
    bigFiles.send(response, variant.path, start, length);
    return length;
  }
  await new Promise<void>((done, fail) => {
    const stream = createReadStream(variant.path, { start, end });
    stream.on('error', fail);
    response.on('close', () => {
      stream.destroy();
      done();
    });
    stream.pipe(response);
  });
  return length;
}
