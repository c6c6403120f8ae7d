/**
 * npm run bench:search [-- <docs-dir>] [--postgres] [--queries N]
 * Ingests a docs folder (default ../shared/corpora/crewai-docs) into a fresh database, then times
 * searches through the same SiteSearch the endpoint uses (including its per-query generation check
 * against the database). Queries are derived deterministically from the corpus itself: every k-th
 * chunk's heading (or the first words of its text), so they hit and miss like real ones do.
 * Then the same queries through the search endpoint, `POST /v1/search/{domain}` (pageSize 5): once
 * in-process through the Hono app (`app.request`: routing, key, rate limits, validation, search, JSON;
 * the server's own time, no sockets), and once over loopback HTTP with keep-alive (@hono/node-server,
 * an undici client in this process: the round trip, client included).
 */
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { serve } from '@hono/node-server';
import { pino } from 'pino';
import { Pool } from 'undici';
import { createApp } from '../src/app.ts';
import { ingestSite } from '../src/ingest/ingest-site.ts';
import { SiteSearch } from '../src/search/site-search.ts';
import { openStorage } from '../src/storage/database.ts';
import { createTemporaryDatabase } from '../src/storage/temporary-database.ts';
import { createApiKey } from '../src/tenancy/api-keys.ts';
import { createOrganization, setOrganizationPlan } from '../src/tenancy/organizations.ts';
import { upsertPlan } from '../src/tenancy/plans.ts';
import { createSite } from '../src/tenancy/sites.ts';
import { corpusDir } from '../src/testing/paths.ts';
import { readTestServiceSettings } from '../src/testing/test-services.ts';

const args = process.argv.slice(2);
const dialect = args.includes('--postgres') ? 'postgres' : 'sqlite';
const queryCount = Number(args[args.indexOf('--queries') + 1] ?? 0) || 2000;
const dir =
  args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--queries') ?? corpusDir('crewai-docs');

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const temporary = await createTemporaryDatabase(dialect, readTestServiceSettings().postgresUrl);
const storage = await openStorage(temporary.url);
try {
  const org = await createOrganization(storage, { name: 'bench' });
  const site = await createSite(storage, { organizationId: org.id, domain: 'bench' });
  await ingestSite(storage, site.id, dir);
  const chunks = await storage.db
    .selectFrom('chunks')
    .select(['headings', 'text'])
    .where('site_id', '=', site.id)
    .orderBy('page_path')
    .orderBy('ord')
    .execute();
  const step = Math.max(1, Math.floor(chunks.length / queryCount));
  const queries: string[] = [];
  for (let i = 0; i < chunks.length && queries.length < queryCount; i += step) {
    const chunk = chunks[i];
    if (!chunk) continue;
    const headings = JSON.parse(chunk.headings) as string[];
    const query = headings.at(-1) ?? chunk.text.split(/\s+/).slice(0, 6).join(' ');
    if (query.trim()) queries.push(query);
  }

  const search = new SiteSearch(storage);
  const loadStarted = performance.now();
  await search.search(site.id, 'warm up', { limit: 5 });
  const loadMs = performance.now() - loadStarted;
  const timings: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await search.search(site.id, query, { limit: 5 });
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  console.log(`search benchmark: ${dir}`);
  console.log(`database: ${dialect}; machine: ${os.cpus().length} cores, Node ${process.version}`);
  console.log(
    `chunks: ${chunks.length}; queries: ${timings.length} (headings/leading words of every ${step}th chunk)`,
  );
  console.log(`index load (first query): ${loadMs.toFixed(0)} ms`);
  console.log(`p50 ${percentile(timings, 50).toFixed(3)} ms (target < 2 ms)`);
  console.log(`p99 ${percentile(timings, 99).toFixed(3)} ms (target < 10 ms)`);

  // The endpoint: an organization without limits, so the run measures work, not the rate limiter.
  await upsertPlan(storage, 'bench-unlimited', {
    name: 'benchmark',
    monthlyCredits: 1_000_000_000,
    orgRequestsPerHour: 1_000_000_000,
    ipRequestsPerDay: 1_000_000_000,
  });
  await setOrganizationPlan(storage, org.id, 'bench-unlimited');
  const { key } = await createApiKey(storage, { organizationId: org.id, siteId: site.id, kind: 'assistant' });
  const app = createApp({ storage, search, logger: pino({ level: 'silent' }) });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const bodies = queries.map((query) => JSON.stringify({ query, pageSize: 5 }));
  const inProcess = async (body: string) => {
    const response = await app.request('/v1/search/bench', { method: 'POST', headers, body });
    if (response.status !== 200) throw new Error(`search endpoint answered ${response.status}`);
    await response.arrayBuffer();
  };
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 1 });
  const overHttp = async (body: string) => {
    const response = await pool.request({ method: 'POST', path: '/v1/search/bench', headers, body });
    if (response.statusCode !== 200) throw new Error(`search endpoint answered ${response.statusCode}`);
    await response.body.arrayBuffer();
  };
  try {
    for (const [name, send, target] of [
      ['endpoint in-process (server time)', inProcess, ' (target < 2 ms)'],
      ['endpoint over loopback HTTP (round trip)', overHttp, ''],
    ] as const) {
      for (const body of bodies.slice(0, 200)) await send(body);
      const times: number[] = [];
      for (const body of bodies) {
        const started = performance.now();
        await send(body);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      console.log(
        `${name}: p50 ${percentile(times, 50).toFixed(3)} ms${target}, p99 ${percentile(times, 99).toFixed(3)} ms`,
      );
    }
  } finally {
    await pool.close();
    await new Promise((resolve) => server.close(resolve));
  }
} finally {
  await storage.close();
  await temporary.remove();
}
