export interface LruCacheOptions<V> {
  /** Entries kept at most; the least recently used go first. */
  readonly maxEntries: number;
  /** With `sizeOf`: the total size kept at most, in whatever unit `sizeOf` counts. */
  readonly maxSize?: number;
  readonly sizeOf?: (value: V) => number;
  /** How long an entry may be served; forever when absent. */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

interface Entry<V> {
  readonly value: V;
  readonly size: number;
  readonly expiresAt: number;
}

/** A small in-memory cache for a Lambda container: bounded in entries and size, optionally in age. */
export class LruCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly now: () => number;
  private totalSizeKept = 0;

  constructor(private readonly options: LruCacheOptions<V>) {
    this.now = options.now ?? Date.now;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.remove(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.insert(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    this.remove(key);
    const size = this.options.sizeOf?.(value) ?? 0;
    if (this.options.maxSize !== undefined && size > this.options.maxSize) return;
    this.insert(key, { value, size, expiresAt: this.now() + (this.options.ttlMs ?? Number.POSITIVE_INFINITY) });
    while (this.entries.size > this.options.maxEntries || this.totalSizeKept > (this.options.maxSize ?? Infinity)) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.remove(oldest.value);
    }
  }

  delete(key: string): void {
    this.remove(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The size kept now, in `sizeOf`'s unit. */
  get totalSize(): number {
    return this.totalSizeKept;
  }

  private insert(key: string, entry: Entry<V>): void {
    this.entries.set(key, entry);
    this.totalSizeKept += entry.size;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.totalSizeKept -= entry.size;
  }
}
