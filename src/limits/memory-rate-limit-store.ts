import type { RateDecision, RateLimitStore, RateWindow, WindowState } from './rate-limit-store.ts';

/** Every this many hits, counters whose requests have all left their window are dropped. */
const SWEEP_EVERY_HITS = 10_000;

interface Log {
  /** Times of counted requests, ascending; `start` is the first one still in the window. */
  times: number[];
  start: number;
  windowMs: number;
}

/**
 * A sliding log per key in this process's memory: exact, and atomic because `hit` does its work
 * synchronously. Memory is bounded by `limit` timestamps per live key. For one process only; several
 * processes need the Redis store.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly kind = 'memory';
  readonly #logs = new Map<string, Log>();
  #hits = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async hit(windows: RateWindow[]): Promise<RateDecision> {
    return this.hitSync(windows);
  }

  hitSync(windows: RateWindow[]): RateDecision {
    const now = this.now();
    if (++this.#hits % SWEEP_EVERY_HITS === 0) this.#sweep(now);
    const logs = windows.map((w) => this.#log(w, now));
    const counts = logs.map((log) => log.times.length - log.start);
    const allowed = windows.every((w, i) => (counts[i] ?? 0) < w.limit);
    let retryAfterMs = 0;
    if (!allowed) {
      windows.forEach((w, i) => {
        const log = logs[i];
        const count = counts[i] ?? 0;
        if (!log || count < w.limit) return;
        // The request that must leave before one more fits: count - limit + 1 from the oldest.
        const freeing = log.times[log.start + count - w.limit] ?? now;
        retryAfterMs = Math.max(retryAfterMs, freeing + w.windowMs - now);
      });
    } else {
      for (const log of logs) log.times.push(now);
    }
    const states: WindowState[] = windows.map((w, i) => {
      const log = logs[i];
      const count = (counts[i] ?? 0) + (allowed ? 1 : 0);
      const oldest = log ? (log.times[log.start] ?? now) : now;
      return { limit: w.limit, remaining: Math.max(0, w.limit - count), resetMs: oldest + w.windowMs - now };
    });
    return { allowed, windows: states, retryAfterMs };
  }

  async close(): Promise<void> {
    this.#logs.clear();
  }

  #log(window: RateWindow, now: number): Log {
    let log = this.#logs.get(window.key);
    if (!log) {
      log = { times: [], start: 0, windowMs: window.windowMs };
      this.#logs.set(window.key, log);
    }
    log.windowMs = window.windowMs;
    const cutoff = now - window.windowMs;
    while (log.start < log.times.length && (log.times[log.start] ?? 0) <= cutoff) log.start++;
    // Compact once the dead prefix is large, keeping pushes and trims amortised O(1).
    if (log.start > 1024 && log.start * 2 > log.times.length) {
      log.times = log.times.slice(log.start);
      log.start = 0;
    }
    return log;
  }

  #sweep(now: number): void {
    for (const [key, log] of this.#logs) {
      const newest = log.times[log.times.length - 1];
      if (newest === undefined || newest <= now - log.windowMs) this.#logs.delete(key);
    }
  }
}
