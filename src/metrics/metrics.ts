import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { AnswerEvent } from '../assistant/answer-question.ts';
import type { IndexCacheStats } from '../search/index-cache.ts';
import type { Storage } from '../storage/database.ts';
import type { IngestionOutcome } from '../tenancy/ingestion-runner.ts';

/** Latency buckets (seconds) for requests and answers: 5 ms to 2 min. */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Ingestion durations (seconds): 100 ms to 10 min. */
const INGESTION_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * The server's Prometheus metrics (prom-client), in a registry of their own: requests by route and
 * status, answers (latency, time to first token, tokens, credits), rate-limit rejections, ingestion
 * jobs, and the process's own (event-loop lag, memory, GC) plus the PostgreSQL pool. Built once per
 * server; `GET /metrics` serves `registry`.
 */
export interface Metrics {
  registry: Registry;
  request(method: string, route: string, status: number, seconds: number): void;
  answered(event: AnswerEvent): void;
  ingested(outcome: IngestionOutcome): void;
}

/** Where the metrics read the search index cache's figures (SiteSearch.cacheStats). */
export type SearchCacheStats = () => IndexCacheStats;

export function createMetrics(storage: Storage, searchCache?: SearchCacheStats): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'docent_http_requests_total',
    help: 'HTTP requests by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: 'docent_http_request_duration_seconds',
    help: 'Time to the response headers, by method and route pattern (streams go on after it).',
    labelNames: ['method', 'route'] as const,
    buckets: SECONDS_BUCKETS,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'docent_rate_limit_rejections_total',
    help: 'Requests refused with 429 by a rate limit, by route pattern.',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const answers = new Counter({
    name: 'docent_answers_total',
    help: 'Answers by stored status (complete, aborted, error).',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const answerSeconds = new Histogram({
    name: 'docent_answer_duration_seconds',
    help: 'From the request to the stored answer.',
    buckets: SECONDS_BUCKETS,
    registers: [registry],
  });
  const firstTokenSeconds = new Histogram({
    name: 'docent_answer_first_token_seconds',
    help: 'From the request to the first word of the answer.',
    buckets: SECONDS_BUCKETS,
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'docent_answer_tokens_total',
    help: 'Model tokens used by answers, by kind (prompt, completion).',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const credits = new Counter({
    name: 'docent_credits_total',
    help: 'Credits charged for answers, and given back (refunded).',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const ingestions = new Counter({
    name: 'docent_ingestion_jobs_total',
    help: 'Ingestion jobs run by this server (admin API), by outcome.',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const ingestionSeconds = new Histogram({
    name: 'docent_ingestion_duration_seconds',
    help: 'Duration of ingestion jobs run by this server.',
    buckets: INGESTION_BUCKETS,
    registers: [registry],
  });
  const pool = storage.poolStats;
  if (pool !== undefined) {
    new Gauge({
      name: 'docent_db_pool_connections',
      help: 'PostgreSQL pool connections by state (total, idle, waiting: requests queued for one).',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const stats = pool();
        this.set({ state: 'total' }, stats.total);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });
  }

  if (searchCache !== undefined) {
    new Gauge({
      name: 'docent_search_index_cache_bytes',
      help: 'Bytes of loaded search indexes (budget: the configured DOCENT_INDEX_CACHE_MB), and the budget.',
      labelNames: ['kind'] as const,
      registers: [registry],
      collect() {
        const stats = searchCache();
        this.set({ kind: 'used' }, stats.bytes);
        this.set({ kind: 'budget' }, stats.budgetBytes);
      },
    });
    new Gauge({
      name: 'docent_search_index_cache_sites',
      help: 'Sites whose search index is loaded in this process.',
      registers: [registry],
      collect() {
        this.set(searchCache().entries);
      },
    });
    // Counters kept by the cache itself: a gauge reporting them reads the same numbers.
    new Gauge({
      name: 'docent_search_index_cache_events',
      help: 'Since the process started: searches that found their index loaded (hit) or not (miss), index loads, evictions.',
      labelNames: ['event'] as const,
      registers: [registry],
      collect() {
        const stats = searchCache();
        this.set({ event: 'hit' }, stats.hits);
        this.set({ event: 'miss' }, stats.misses);
        this.set({ event: 'load' }, stats.loads);
        this.set({ event: 'eviction' }, stats.evictions);
      },
    });
  }

  return {
    registry,
    request(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      requestSeconds.observe({ method, route }, seconds);
      if (status === 429) rateLimited.inc({ route });
    },
    answered(event) {
      answers.inc({ status: event.status });
      answerSeconds.observe(event.totalMs / 1000);
      if (event.firstTokenMs !== undefined) firstTokenSeconds.observe(event.firstTokenMs / 1000);
      tokens.inc({ kind: 'prompt' }, event.promptTokens);
      tokens.inc({ kind: 'completion' }, event.completionTokens);
      credits.inc({ kind: 'charged' }, event.credits);
      if (event.refunded) credits.inc({ kind: 'refunded' }, event.credits);
    },
    ingested(outcome) {
      ingestions.inc({ status: outcome.status });
      ingestionSeconds.observe(outcome.ms / 1000);
    },
  };
}
