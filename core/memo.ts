/**
 * Values made once per key and remembered, in bounded memory: every one is forgotten once `limit`
 * are held. The keys come from requests (a Host, an Accept-Encoding, a path), which anyone may
 * vary without end; the few a server really sees are made again at once, so clearing costs less
 * than keeping an order of use.
 */
export class Memo<K, V> {
  private readonly values = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    return this.values.get(key);
  }

  remember(key: K, value: V): V {
    if (this.values.size >= this.limit && !this.values.has(key)) this.values.clear();
    this.values.set(key, value);
    return value;
  }

  /** The value remembered for `key`, else `make`'s, remembered. */
  of(key: K, make: () => V): V {
    const found = this.values.get(key);
    return found !== undefined || this.values.has(key) ? (found as V) : this.remember(key, make());
  }

  forget(key: K): void {
    this.values.delete(key);
  }

  clear(): void {
    this.values.clear();
  }
}
