/** What the cache has done since the process started (logged, and served as metrics). */
export interface IndexCacheStats {
  entries: number;
  bytes: number;
  budgetBytes: number;
  hits: number;
  misses: number;
  loads: number;
  evictions: number;
}

/**
 * Loaded site indexes under a byte budget, least recently used first out. An entry bigger than the
 * whole budget is still kept (its site must be served) and everything else goes; the next load of
 * another site evicts it in turn.
 */
export class IndexCache<T> {
  /** Map order is recency: a hit moves its entry to the end. */
  private readonly entries = new Map<string, { value: T; bytes: number }>();
  private bytes = 0;
  private readonly counts = { hits: 0, misses: 0, loads: 0, evictions: 0 };

  constructor(
    readonly budgetBytes: number,
    private readonly onEvict: (key: string, bytes: number) => void = () => {},
  ) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.counts.misses++;
      return undefined;
    }
    this.counts.hits++;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Without counting a hit or a miss or changing the order. */
  peek(key: string): T | undefined {
    return this.entries.get(key)?.value;
  }

  set(key: string, value: T, bytes: number): void {
    this.delete(key);
    this.counts.loads++;
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [other, entry] of this.entries) {
      if (this.bytes <= this.budgetBytes || other === key) break;
      this.entries.delete(other);
      this.bytes -= entry.bytes;
      this.counts.evictions++;
      this.onEvict(other, entry.bytes);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  stats(): IndexCacheStats {
    return { entries: this.entries.size, bytes: this.bytes, budgetBytes: this.budgetBytes, ...this.counts };
  }
}
