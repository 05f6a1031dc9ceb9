import type { Representation } from './http/respond.ts';

/**
 * The answers of the current snapshot asked for lately, kept ready for the wire (compressed, with
 * their ETag and headers) for the endpoints whose kind says they are asked for again and again (a
 * record by its id: see ServerFacet.keepsAnswers). A snapshot never changes, so a kept answer is
 * right for as long as its snapshot is served; when another is, all are let go. Bounded by bytes,
 * the least recently asked for going first.
 */
export class KeptAnswers {
  /** In the order they were last asked for, oldest first (a Map keeps the order of insertion). */
  private readonly answers = new Map<string, Representation>();
  private bytes = 0;
  private snapshot = '';

  constructor(private readonly maxBytes: number) {}

  /** What is kept under `key` for the served snapshot `snapshot`, if anything. */
  get(snapshot: string, key: string): Representation | undefined {
    if (snapshot !== this.snapshot) return undefined;
    const answer = this.answers.get(key);
    if (answer) {
      this.answers.delete(key);
      this.answers.set(key, answer);
    }
    return answer;
  }

  /** Keeps an answer, unless it would take more than a sixteenth of what may be kept. */
  set(snapshot: string, key: string, answer: Representation): void {
    if (snapshot !== this.snapshot) {
      this.answers.clear();
      this.bytes = 0;
      this.snapshot = snapshot;
    }
    const size = sizeOf(key, answer);
    if (size > this.maxBytes / 16 || this.answers.has(key)) return;
    this.answers.set(key, ownBytes(answer));
    this.bytes += size;
    for (const [oldest, kept] of this.answers) {
      if (this.bytes <= this.maxBytes) break;
      this.answers.delete(oldest);
      this.bytes -= sizeOf(oldest, kept);
    }
  }

  /** Answers kept, and their bytes (as counted here), for the metrics and the tests. */
  get size(): { readonly answers: number; readonly bytes: number } {
    return { answers: this.answers.size, bytes: this.bytes };
  }
}

/**
 * The answer with a body of its own: a small Buffer is often a slice of an 8 KiB pool that other
 * Buffers, long gone, shared; kept, it would keep the whole pool.
 */
function ownBytes(answer: Representation): Representation {
  const { content } = answer;
  if (content.byteLength === content.buffer.byteLength) return answer;
  const own = Buffer.allocUnsafeSlow(content.byteLength);
  content.copy(own);
  return { ...answer, content: own };
}

/** What an answer holds in memory, near enough: its body, key and headers (two bytes a character). */
function sizeOf(key: string, answer: Representation): number {
  let text = key.length;
  for (const header of answer.headers) text += header.length;
  return answer.content.length + 2 * text;
}
