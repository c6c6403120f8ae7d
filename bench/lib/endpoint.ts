/**
 * The endpoint under load: POST /v1/assistant/{domain}/message on Docent (the built-in answerer, and a
 * loopback OpenAI-compatible provider when `src/assistant/providers/` is present) next to the bare Hono +
 * ai@4.3.19 stream route (bench/bare-server.ts). Every server is its own process; the load comes from
 * this process through bench/load.ts (undici, closed loop, keep-alive, TTFB = first body byte).
 */
import fs from 'node:fs';
import path from 'node:path';
import { readEvalSet } from '../../src/search/eval-set.ts';
import { openStorage } from '../../src/storage/database.ts';
import { createTemporaryDatabase } from '../../src/storage/temporary-database.ts';
import { bootstrapSite } from '../../src/tenancy/bootstrap-site.ts';
import { setOrganizationPlan } from '../../src/tenancy/organizations.ts';
import { upsertPlan } from '../../src/tenancy/plans.ts';
import { repoRoot } from '../../src/testing/paths.ts';
import { type LoadResult, type LoadSamples, sampleLoad, summarizeLoad } from '../load.ts';
import {
  type StartedProcess,
  startBareServer,
  startDocentServer,
  startNodeScript,
  stopProcess,
} from './processes.ts';

/** The plan the benchmark organization is put on: limits far above what a run sends. */
const BENCH_PLAN = 'bench-unlimited';

export const LOOPBACK_MODULE = 'src/assistant/providers/testing/loopback-llm.ts';
/** Tokens each loopback completion streams. */
export const LOOPBACK_TOKENS = 20;

export interface EndpointTarget {
  name: string;
  description: string;
}

export interface EndpointRow {
  target: string;
  concurrency: number;
  result: LoadResult;
}

export interface EndpointReport {
  setDir: string;
  questions: number;
  pages: number;
  secondsPerRun: number;
  warmupMs: number;
  rounds: number;
  concurrencies: number[];
  targets: EndpointTarget[];
  /** Why a loopback-provider target is missing, when it is. */
  loopbackNote: string | null;
  rows: EndpointRow[];
}

export interface EndpointOptions {
  setDir: string;
  concurrencies: number[];
  seconds: number;
  warmupMs?: number;
  /** Turns each target takes at each level, `seconds` split between them (default 1). */
  rounds?: number;
  /** Include the loopback-provider target when its module exists (default true). */
  loopback?: boolean;
  log?: (line: string) => void;
}

/** Request bodies for the assistant route: one user message per question, round-robin. */
export function assistantBodies(questions: readonly string[]): string[] {
  return questions.map((question, i) =>
    JSON.stringify({
      fp: 'anonymous',
      retrievalPageSize: 5,
      messages: [{ id: `m${i}`, role: 'user', content: question, parts: [{ type: 'text', text: question }] }],
    }),
  );
}

interface LiveTarget extends EndpointTarget {
  process: StartedProcess<string>;
  path: string;
  headers: Record<string, string>;
}

export async function runEndpointBench(options: EndpointOptions): Promise<EndpointReport> {
  const log = options.log ?? (() => {});
  const warmupMs = options.warmupMs ?? 500;
  const set = await readEvalSet(options.setDir);
  const bodies = assistantBodies(set.questions.map((q) => q.question));
  const temporary = await createTemporaryDatabase('sqlite');
  const storage = await openStorage(temporary.url);
  let pages = 0;
  let assistantKey: string;
  try {
    const boot = await bootstrapSite(storage, { domain: 'bench', docsDir: set.docsDir });
    // The default plan's 10,000 requests per hour (and per IP per day) are less than one run sends:
    // the benchmark measures the work of answering, so its organization is on a plan without limits.
    await upsertPlan(storage, BENCH_PLAN, {
      name: 'benchmark',
      monthlyCredits: 1_000_000_000,
      orgRequestsPerHour: 1_000_000_000,
      ipRequestsPerDay: 1_000_000_000,
    });
    await setOrganizationPlan(storage, boot.organization.id, BENCH_PLAN);
    assistantKey = boot.assistantKey;
    pages = boot.ingestion.counts.pages;
  } finally {
    await storage.close();
  }

  const loopbackWanted = options.loopback ?? true;
  const loopbackAvailable = fs.existsSync(path.join(repoRoot, LOOPBACK_MODULE));
  const loopbackNote = !loopbackWanted
    ? 'loopback-provider target not requested'
    : loopbackAvailable
      ? null
      : `${LOOPBACK_MODULE} does not exist in this checkout, so there is no loopback-provider target`;

  const started: StartedProcess<unknown>[] = [];
  const targets: LiveTarget[] = [];
  try {
    const docentHeaders = { 'content-type': 'application/json', authorization: `Bearer ${assistantKey}` };
    const provider =
      loopbackWanted && loopbackAvailable
        ? startNodeScript(
            ['bench/loopback-provider.ts', '--tokens', String(LOOPBACK_TOKENS)],
            {},
            (line) => (JSON.parse(line) as { origin?: string }).origin,
          )
        : null;
    const [builtin, bare, loopbackProvider] = await startAll(started, [
      startDocentServer(temporary.url),
      startBareServer(),
      provider,
    ] as const);
    targets.push({
      name: 'docent (built-in answerer)',
      description:
        'Docent src/main.ts, SQLite, DOCENT_MODEL=builtin: auth, thread writes, search, extractive answer',
      process: builtin,
      path: '/v1/assistant/bench/message',
      headers: docentHeaders,
    });
    if (loopbackProvider) {
      started.push(loopbackProvider);
      const viaProvider = await startDocentServer(temporary.url, {
        DOCENT_MODEL: 'openai-compatible:bench-model',
        DOCENT_MODEL_BASE_URL: `${loopbackProvider.value}/v1`,
      });
      started.push(viaProvider);
      targets.push({
        name: 'docent (loopback provider)',
        description: `Docent with DOCENT_MODEL=openai-compatible pointed at bench/loopback-provider.ts (its own process; ${LOOPBACK_TOKENS} tokens per answer, no artificial delay)`,
        process: viaProvider,
        path: '/v1/assistant/bench/message',
        headers: docentHeaders,
      });
    }
    targets.push({
      name: 'bare route',
      description: 'bench/bare-server.ts: bare Hono + ai@4.3.19 createDataStreamResponse, fixed answer',
      process: bare,
      path: '/message',
      headers: { 'content-type': 'application/json' },
    });

    const rows: EndpointRow[] = [];
    const rounds = Math.max(1, options.rounds ?? 1);
    for (const concurrency of options.concurrencies) {
      const load = (target: LiveTarget, durationMs: number) =>
        sampleLoad({
          origin: target.process.value,
          path: target.path,
          headers: target.headers,
          bodies,
          concurrency,
          durationMs,
        });
      // Warm-up per target and level: JIT, connection pool, the search index cache.
      for (const target of targets) await load(target, warmupMs);
      // The targets take turns, `rounds` times, and each one's rounds are pooled: a slow stretch of a
      // shared machine then falls on every target instead of on whichever was running.
      const samples = new Map<string, LoadSamples[]>(targets.map((t) => [t.name, []]));
      for (let round = 0; round < rounds; round++) {
        for (const target of targets)
          samples.get(target.name)?.push(await load(target, (options.seconds * 1000) / rounds));
      }
      for (const target of targets) {
        const result = summarizeLoad(samples.get(target.name) ?? []);
        rows.push({ target: target.name, concurrency, result });
        log(
          `  ${target.name} @ ${concurrency}: ${result.rps.toFixed(0)} req/s, TTFB p50 ${result.ttfbMs.p50.toFixed(1)} ms p99 ${result.ttfbMs.p99.toFixed(1)} ms, ${result.errors} errors${result.errors > 0 ? ` ${JSON.stringify(result.failures)}` : ''}`,
        );
      }
    }
    return {
      setDir: options.setDir,
      questions: set.questions.length,
      pages,
      secondsPerRun: options.seconds,
      warmupMs,
      rounds,
      concurrencies: options.concurrencies,
      targets: targets.map(({ name, description }) => ({ name, description })),
      loopbackNote,
      rows,
    };
  } finally {
    await Promise.all(started.map((p) => stopProcess(p.child)));
    await temporary.remove();
  }
}

/** Awaits every start; those that started are recorded in `started` (to be stopped) even if one failed. */
async function startAll<T extends readonly (Promise<StartedProcess<unknown>> | null)[]>(
  started: StartedProcess<unknown>[],
  starts: T,
): Promise<{ [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(starts);
  for (const s of settled) if (s.status === 'fulfilled' && s.value) started.push(s.value);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as {
    [K in keyof T]: Awaited<T[K]>;
  };
}
