import type { RateDecision, RateLimitStore, RateWindow } from '../limits/rate-limit-store.ts';
import type { OutageLog } from '../storage/outage-log.ts';

/** The store, with each failure of it told to `outage` (the caller still gets the error). */
export function watchedRateLimitStore(store: RateLimitStore, outage: OutageLog): RateLimitStore {
  return {
    kind: store.kind,
    hit: (windows: RateWindow[]): Promise<RateDecision> =>
      store.hit(windows).catch((error: unknown) => {
        outage.failed(error);
        throw error;
      }),
    close: () => {
      outage.close();
      return store.close();
    },
  };
}
