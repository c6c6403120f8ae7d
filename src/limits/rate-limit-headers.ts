import type { RateDecision } from './rate-limit-store.ts';

/** IETF draft "RateLimit header fields for HTTP" (the three-field form most clients read). */
export const RATE_LIMIT_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
];

/**
 * The window closest to refusing is the one reported: with an hourly organization limit and a daily
 * IP limit, a client sees whichever will stop it first.
 */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const tightest = [...decision.windows].sort(
    (a, b) => a.remaining - b.remaining || b.resetMs - a.resetMs,
  )[0];
  if (!tightest) return {};
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(tightest.limit),
    'RateLimit-Remaining': String(tightest.remaining),
    'RateLimit-Reset': String(Math.max(0, Math.ceil(tightest.resetMs / 1000))),
  };
  if (!decision.allowed)
    headers['Retry-After'] = String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
  return headers;
}
