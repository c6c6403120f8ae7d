import { LRUCache } from 'lru-cache';
import type { Publisher, Subscriber } from 'resumable-stream/generic';

/** Keys (stream sentinels, active-stream pointers) one process keeps at most. */
export const MAX_MEMORY_KEYS = 100_000;

/**
 * The Redis commands `resumable-stream` uses, inside one process: for a single Docent process, so the
 * same library code resumes streams with or without Redis. Messages are delivered on a later microtask,
 * as a network round trip would be, never inside the publisher's call.
 */
export class MemoryPubSub {
  private readonly values = new LRUCache<string, string>({ max: MAX_MEMORY_KEYS, ttlAutopurge: false });
  private readonly channels = new Map<string, (message: string) => void>();

  readonly publisher: Publisher = {
    connect: async () => {},
    publish: async (channel, message) => {
      const listener = this.channels.get(channel);
      if (listener === undefined) return 0;
      queueMicrotask(() => listener(message));
      return 1;
    },
    set: async (key, value, options) => {
      this.values.set(key, value, options?.EX === undefined ? {} : { ttl: options.EX * 1000 });
      return 'OK';
    },
    get: async (key) => this.values.get(key) ?? null,
    incr: async (key) => {
      const current = this.values.get(key);
      const next = current === undefined ? 1 : Number(current) + 1;
      if (!Number.isInteger(next)) throw new Error('ERR value is not an integer or out of range');
      this.values.set(key, String(next));
      return next;
    },
  };

  /** One listener per channel, as on one Redis connection (a second subscribe replaces the first). */
  readonly subscriber: Subscriber = {
    connect: async () => {},
    subscribe: async (channel, callback) => {
      this.channels.set(channel, callback);
    },
    unsubscribe: async (channel) => {
      this.channels.delete(channel);
    },
  };
}
