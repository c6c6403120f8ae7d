/**
 * npm run bench:limits [-- --requests N]
 * Per-request overhead of the assistant route's gate: key authentication, origin check, rate limit
 * (two sliding windows) and the credit charge (one locked transaction), measured through a Hono app
 * that runs exactly that path and then answers 200 with no body. Two set-ups: SQLite with the in-process store,
 * and PostgreSQL with the Redis store. Prints p50/p99 in microseconds; asserts nothing.
 */
import crypto from 'node:crypto';
import { Hono } from 'hono';
import { pino } from 'pino';
import type { AppEnv } from '../src/http/app-env.ts';
import { createAssistantAccess } from '../src/http/assistant-access.ts';
import { handleError } from '../src/http/error-handler.ts';
import { serverRequestId } from '../src/http/request-id.ts';
import { createCreditGuard } from '../src/limits/credit-guard.ts';
import { createTenant } from '../src/limits/limits-fixtures.ts';
import { MemoryRateLimitStore } from '../src/limits/memory-rate-limit-store.ts';
import type { RateLimitStore } from '../src/limits/rate-limit-store.ts';
import { RedisRateLimitStore } from '../src/limits/redis-rate-limit-store.ts';
import { openStorage } from '../src/storage/database.ts';
import { createTemporaryDatabase } from '../src/storage/temporary-database.ts';
import { TenancyCache } from '../src/tenancy/tenancy-cache.ts';
import { readTestServiceSettings } from '../src/testing/test-services.ts';

const args = process.argv.slice(2);
const requests = Number(args[args.indexOf('--requests') + 1] ?? 0) || 2000;
const WARMUP = 100;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function measure(
  label: string,
  dialect: 'sqlite' | 'postgres',
  openStore: () => Promise<RateLimitStore>,
) {
  const temporary = await createTemporaryDatabase(dialect, readTestServiceSettings().postgresUrl);
  const storage = await openStorage(temporary.url);
  const store = await openStore();
  try {
    const tenant = await createTenant(storage, {
      domain: 'bench',
      plan: { monthlyCredits: 10_000_000, orgRequestsPerHour: 10_000_000, ipRequestsPerDay: 10_000_000 },
      allowedOrigins: ['https://docs.example.com'],
    });
    // The same key/site/plan cache the server uses (default freshness), so the figure is the route's.
    const tenancy = new TenancyCache(storage);
    const access = createAssistantAccess({ storage, tenancy, store, trustProxy: false });
    const logger = pino({ level: 'silent' });
    const credits = createCreditGuard(storage, logger);
    const app = new Hono<AppEnv>();
    app.use(serverRequestId());
    app.use(async (c, next) => {
      c.set('logger', logger);
      await next();
    });
    app.onError(handleError);
    app.post('/v1/assistant/:domain/message', access.wrap, async (c) => {
      const caller = await access.admit(c);
      const { site, plan } = caller;
      await credits.charge(
        { organizationId: site.organization_id, siteId: site.id, requestId: c.get('requestId'), plan },
        async () => {},
      );
      return c.body(null, 200);
    });
    const headers = { Authorization: `Bearer ${tenant.assistantKey}`, Origin: 'https://docs.example.com' };
    const timings: number[] = [];
    for (let i = 0; i < WARMUP + requests; i++) {
      const started = process.hrtime.bigint();
      const response = await app.request('/v1/assistant/bench/message', { method: 'POST', headers });
      const elapsed = Number(process.hrtime.bigint() - started) / 1000;
      if (response.status !== 200) throw new Error(`unexpected ${response.status}: ${await response.text()}`);
      if (i >= WARMUP) timings.push(elapsed);
    }
    timings.sort((a, b) => a - b);
    const ledger = await storage.db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    console.log(
      `${label.padEnd(28)} p50 ${percentile(timings, 50).toFixed(0).padStart(6)} µs   p99 ${percentile(
        timings,
        99,
      )
        .toFixed(0)
        .padStart(6)} µs   (${requests} requests, ${Number(ledger.n)} ledger entries)`,
    );
  } finally {
    await store.close();
    await storage.close();
    await temporary.remove();
  }
}

console.log(
  `auth + origin + rate limit + credit charge, per request (${requests} sequential requests after ${WARMUP} warm-up)`,
);
await measure('SQLite + in-process store', 'sqlite', async () => new MemoryRateLimitStore());
await measure('PostgreSQL + Redis store', 'postgres', () =>
  RedisRateLimitStore.connect(readTestServiceSettings().redisUrl, {
    keyPrefix: `docent-bench:${crypto.randomBytes(4).toString('hex')}:`,
  }),
);
