import { ProtocolError } from '../../../datasets/answers/crawling.ts';
import { JournalFull } from '../journal.ts';

/**
 * What failed in a crawl: a step or an item that failed is recorded and the rest go on, unless
 * the whole pull has stopped (the upstream found down, the journal full); and whether the journal
 * can still be resumed.
 */

/**
 * Whether a failure may have its cause in what the journal holds, so that every pull resuming it
 * would fail the same way: an answer v1 does not allow, a limit reached, or a crash (an error of
 * the language itself: code meeting data it was not written for). Failures of the network, and
 * those they bring about (a step whose list could not be fetched), leave the journal to resume.
 */
export const spoilsJournal = (error: unknown): boolean =>
  error instanceof ProtocolError ||
  error instanceof JournalFull ||
  error instanceof TypeError ||
  error instanceof RangeError ||
  error instanceof SyntaxError ||
  error instanceof ReferenceError;

export class Failures {
  /** The failures said in the pull's summary. */
  readonly messages: string[] = [];
  /** Why the journal cannot be resumed, once a failure may have its cause in it (see spoilsJournal). */
  unresumable: string | undefined;

  constructor(
    private readonly dataset: string,
    /** What ends the whole pull at once, if anything has. */
    private readonly stopped: () => Error | undefined,
    private readonly log: (event: string, fields: Record<string, unknown>) => void,
  ) {}

  /** A failure of the pull that is no error, said in its summary. */
  say(message: string): void {
    this.messages.push(message);
  }

  /** Records a step's or an item's failure; rethrows what stopped the whole pull, if anything has. */
  take(error: unknown): void {
    const stopped = this.stopped();
    if (stopped) throw stopped;
    const message = (error as Error).message ?? String(error);
    this.messages.push(message);
    if (spoilsJournal(error)) this.unresumable ??= message;
    this.log('failed', { dataset: this.dataset, error: message });
  }

  /** Runs `work` over items, `parallel` at a time; a failed item is taken (see take) and the rest go on. */
  async each<T>(items: readonly T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const item = items[next++]!;
        try {
          await work(item);
        } catch (error) {
          this.take(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
  }
}
