import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import type { RateDecision, RateLimitStore, RateWindow } from './rate-limit-store.ts';

/**
 * Sliding log per key in a sorted set (score = time in ms, member unique per request). The script
 * runs atomically in Redis, so every process sharing the server sees one exact count. Time comes from
 * the Redis server, so processes with skewed clocks still agree on windows.
 *
 * KEYS: one per window. ARGV: member, then limit and window (ms) for each key.
 * Returns: allowed (0/1), retryAfterMs, then for each key: count after the decision and the oldest score.
 */
const SLIDING_LOG_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local member = ARGV[1]
local allowed = 1
local retry = 0
local counts = {}
for i = 1, #KEYS do
  local limit = tonumber(ARGV[i * 2])
  local window = tonumber(ARGV[i * 2 + 1])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  local count = redis.call('ZCARD', KEYS[i])
  counts[i] = count
  if count >= limit then
    allowed = 0
    local freeing = redis.call('ZRANGE', KEYS[i], count - limit, count - limit, 'WITHSCORES')
    local wait = tonumber(freeing[2]) + window - now
    if wait > retry then retry = wait end
  end
end
local out = { allowed, retry }
for i = 1, #KEYS do
  local window = tonumber(ARGV[i * 2 + 1])
  if allowed == 1 then
    redis.call('ZADD', KEYS[i], now, member)
    redis.call('PEXPIRE', KEYS[i], window)
    counts[i] = counts[i] + 1
  end
  local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  local age = now
  if oldest[2] then age = tonumber(oldest[2]) end
  out[#out + 1] = counts[i]
  out[#out + 1] = age + window - now
end
return out
`;

export const DEFAULT_REDIS_KEY_PREFIX = 'docent:rl:';

export interface RedisStoreOptions {
  /** Prepended to every key: lets several deployments (or test runs) share one Redis. */
  keyPrefix?: string;
}

export class RedisRateLimitStore implements RateLimitStore {
  readonly kind = 'redis';
  readonly #redis: Redis;
  readonly #prefix: string;

  private constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#redis.defineCommand('docentSlidingLog', { lua: SLIDING_LOG_SCRIPT });
  }

  /** Connects and checks the server answers, so a wrong REDIS_URL fails at start, not per request. */
  static async connect(url: string, options: RedisStoreOptions = {}): Promise<RedisRateLimitStore> {
    const redis = new Redis(url, {
      lazyConnect: true,
      // Fail a command fast while Redis is away instead of queueing requests behind it.
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 5_000,
    });
    // ioredis reports connection trouble as events; the failing command is what callers see.
    redis.on('error', () => {});
    try {
      await redis.connect();
      await redis.ping();
      // ioredis reports a database number the server does not have (`redis://host/99`) only as an error
      // event and then runs every command on database 0, sharing counters with whatever uses that.
      await redis.select(redis.options.db ?? 0);
    } catch (error) {
      redis.disconnect();
      throw new Error(`Cannot reach Redis at ${redact(url)}: ${(error as Error).message}`, { cause: error });
    }
    return new RedisRateLimitStore(redis, options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX);
  }

  async hit(windows: RateWindow[]): Promise<RateDecision> {
    const keys = windows.map((w) => `${this.#prefix}${w.key}`);
    const args: (string | number)[] = [crypto.randomUUID()];
    for (const w of windows) args.push(w.limit, w.windowMs);
    const command = (this.#redis as unknown as Record<string, (...a: unknown[]) => Promise<number[]>>)
      .docentSlidingLog;
    if (!command) throw new Error('sliding log script not defined');
    const reply = await command.call(this.#redis, keys.length, ...keys, ...args);
    const allowed = reply[0] === 1;
    return {
      allowed,
      retryAfterMs: Number(reply[1] ?? 0),
      windows: windows.map((w, i) => {
        const count = Number(reply[2 + i * 2] ?? 0);
        return {
          limit: w.limit,
          remaining: Math.max(0, w.limit - count),
          resetMs: Number(reply[3 + i * 2] ?? w.windowMs),
        };
      }),
    };
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
