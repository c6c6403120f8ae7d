/** One counter a request is counted against: at most `limit` requests in any `windowMs` span. */
export interface RateWindow {
  key: string;
  limit: number;
  windowMs: number;
}

export interface WindowState {
  limit: number;
  /** Requests still allowed in the window after this decision. */
  remaining: number;
  /** Milliseconds until the oldest counted request leaves the window (a slot frees up). */
  resetMs: number;
}

export interface RateDecision {
  /** True when every window had room; the request was then counted in all of them. */
  allowed: boolean;
  windows: WindowState[];
  /** When refused: milliseconds until every refusing window has room again. */
  retryAfterMs: number;
}

/**
 * Sliding-window counters with exact counting: a request is counted in all its windows or in none,
 * atomically, so "N per window" holds under any concurrency the store is shared by. Refused requests
 * are not counted.
 */
export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  hit(windows: RateWindow[]): Promise<RateDecision>;
  close(): Promise<void>;
}
