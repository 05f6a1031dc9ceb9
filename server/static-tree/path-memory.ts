/** What an entry of a map costs beyond its key and the bytes its value holds (the map's slot, small objects): a guess on the high side. */
const ENTRY_BYTES = 512;

/** What an entry of a map takes: its key (two bytes a character, as a string past Latin-1 is held), its value's bytes, the rest. */
export const memoryOf = (key: string, value?: Uint8Array) => 2 * key.length + (value?.length ?? 0) + ENTRY_BYTES;

/**
 * A map from what clients send (paths, ranges) that forgets everything once its entries pass
 * `limit` bytes: their keys, as long as clients make them, and the bytes each value holds, as the
 * caller counts them: bounded by entries alone, it grew with the length of the paths clients chose.
 */
export class PathMemory<V> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;

  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Remembers a value for a key it does not hold; `valueBytes`: the memory the value holds beyond small objects. */
  set(key: string, value: V, valueBytes = 0): void {
    const bytes = memoryOf(key) + valueBytes;
    if (this.bytes + bytes > this.limit) this.clear();
    if (bytes > this.limit) return;
    this.entries.set(key, value);
    this.bytes += bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
