import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../app.ts';
import { askBody, createTenant, type Tenant } from '../../limits/limits-fixtures.ts';
import { createMetrics } from '../../metrics/metrics.ts';
import { SiteSearch } from '../../search/site-search.ts';
import { IngestionRunner } from '../../tenancy/ingestion-runner.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../../testing/databases.ts';
import { createTestApp } from '../../testing/test-app.ts';

const TOKEN = 'metrics-token-0123456789';

/** The value of one sample line of the Prometheus text, e.g. `name{label="x"}`; undefined if absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(dialects)('GET /metrics on %s', (dialect) => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;
  let docsRoot: string;
  const ingestions = new IngestionRunner();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    docsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-metrics-'));
    fs.mkdirSync(path.join(docsRoot, 'tiny'));
    fs.writeFileSync(path.join(docsRoot, 'tiny', 'index.md'), '# Install\n\nRun npm install to set it up.\n');
    const { storage } = database;
    const search = new SiteSearch(storage, { cacheBytes: 64 * 1_048_576 });
    app = createApp({
      storage,
      search,
      logger: pino({ level: 'silent' }),
      docsRoot,
      ingestions,
      metrics: createMetrics(storage, () => search.cacheStats()),
      metricsToken: TOKEN,
    });
    // Three requests an hour: the fourth is refused, which the metrics must count.
    tenant = await createTenant(storage, { domain: 'metered', plan: { orgRequestsPerHour: 3 } });
  });
  afterAll(async () => {
    await ingestions.idle();
    await database?.drop();
    fs.rmSync(docsRoot, { recursive: true, force: true });
  });

  const scrape = async () => {
    const response = await app.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };

  it('is refused without the token, with the standard JSON error', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: 'Bearer wrong' },
      { Authorization: `Bearer ${TOKEN}x` },
    ];
    for (const headers of attempts) {
      const response = await app.request('/metrics', { headers });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
  });

  it('counts requests by route pattern, answers, tokens, credits, rate limits and ingestions', async () => {
    const ask = () =>
      app.request('/v1/assistant/metered/message', {
        method: 'POST',
        headers: { Authorization: `Bearer ${tenant.assistantKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(askBody('How do I install it?')),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await ask();
      statuses.push(response.status);
      await response.text();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    await app.request('/no/such/route');

    const ingestion = await app.request('/v1/admin/sites/metered/ingestions', {
      method: 'POST',
      headers: { Authorization: `Bearer ${tenant.adminKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ docsDir: 'tiny' }),
    });
    expect(ingestion.status).toBe(202);
    await ingestions.idle();

    const text = await scrape();
    const route = '/v1/assistant/:domain/message';
    expect(sample(text, `docent_http_requests_total{method="POST",route="${route}",status="200"}`)).toBe(3);
    expect(sample(text, `docent_http_requests_total{method="POST",route="${route}",status="429"}`)).toBe(1);
    expect(sample(text, `docent_http_requests_total{method="GET",route="(unmatched)",status="404"}`)).toBe(1);
    expect(sample(text, `docent_rate_limit_rejections_total{route="${route}"}`)).toBe(1);
    expect(sample(text, `docent_http_request_duration_seconds_count{method="POST",route="${route}"}`)).toBe(
      4,
    );
    expect(sample(text, 'docent_answers_total{status="complete"}')).toBe(3);
    expect(sample(text, 'docent_answer_duration_seconds_count')).toBe(3);
    expect(sample(text, 'docent_answer_first_token_seconds_count')).toBe(3);
    expect(sample(text, 'docent_answer_tokens_total{kind="completion"}')).toBeGreaterThan(0);
    expect(sample(text, 'docent_credits_total{kind="charged"}')).toBe(3);
    expect(sample(text, 'docent_ingestion_jobs_total{status="success"}')).toBe(1);
    expect(sample(text, 'docent_ingestion_duration_seconds_count')).toBe(1);
    // The process's own, through prom-client's default collectors.
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    // The answers loaded the site's index once, and found it loaded after that.
    expect(sample(text, 'docent_search_index_cache_sites')).toBe(1);
    expect(sample(text, 'docent_search_index_cache_events{event="load"}')).toBe(1);
    expect(sample(text, 'docent_search_index_cache_events{event="miss"}')).toBe(1);
    expect(sample(text, 'docent_search_index_cache_events{event="hit"}')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'docent_search_index_cache_bytes{kind="used"}')).toBeGreaterThan(0);
    expect(sample(text, 'docent_search_index_cache_bytes{kind="budget"}')).toBe(64 * 1_048_576);
    if (dialect === 'postgres')
      expect(sample(text, 'docent_db_pool_connections{state="total"}')).toBeGreaterThan(0);
    else expect(text).not.toContain('docent_db_pool_connections');
  });
});

describe('without a metrics token', () => {
  it('has no /metrics route', async () => {
    const database = await createTestDatabase('sqlite');
    try {
      const { storage } = database;
      const app = createTestApp(storage);
      expect((await app.request('/metrics')).status).toBe(404);
    } finally {
      await database.drop();
    }
  });
});
