/**
 * The endpoint under load, both wires of the same answer pipeline on the same Docent process:
 * - v1, POST /v1/assistant/{domain}/message (AI SDK 4 data stream, `CODE:JSON` lines), and
 * - v2, POST /v2/assistant/{domain}/message (AI SDK 5+ UI message stream, SSE `data: {json}` chunks
 *   ending `data: [DONE]`), each request with its own chat id (`bench-v2-<n>`, never reused in a run), so
 *   every v2 answer is also recorded for resuming, as a `useChat` app's would be;
 * on Docent with the built-in answerer, and with a loopback OpenAI-compatible provider when
 * `src/assistant/providers/` is present (one Docent process per model, each serving both wires), next to
 * the bare routes of bench/bare-server.ts: Hono + ai@4.3.19 `createDataStreamResponse` (v1) and Hono +
 * ai@5 `createUIMessageStream`/`createUIMessageStreamResponse` (v2), fixed answers of the same shape.
 * Every server is its own process; the load comes from this process through bench/load.ts (undici,
 * closed loop, keep-alive, TTFB = first body byte on both wires). The same questions are asked on both
 * wires, and all targets take turns at each level, so v1 and v2 share the machine's slow stretches alike.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readEvalSet } from '../../src/search/eval-set.ts';
import { openStorage } from '../../src/storage/database.ts';
import { createTemporaryDatabase } from '../../src/storage/temporary-database.ts';
import { bootstrapSite } from '../../src/tenancy/bootstrap-site.ts';
import { repoRoot } from '../../src/testing/paths.ts';
import { type LoadResult, type LoadSamples, sampleLoad, summarizeLoad } from '../load.ts';
import { putOnUnlimitedPlan } from './bench-plan.ts';
import {
  type StartedProcess,
  startBareServer,
  startDocentServer,
  startNodeScript,
  stopProcess,
} from './processes.ts';

export const LOOPBACK_MODULE = 'src/assistant/providers/testing/loopback-llm.ts';
/** Tokens each loopback completion streams. */
export const LOOPBACK_TOKENS = 20;

export type Wire = 'v1' | 'v2';

export interface EndpointTarget {
  name: string;
  description: string;
  /** Which assistant wire the target speaks (absent in reports written before v2: v1). */
  wire?: Wire;
  /** The bare row its throughput is compared with: the bare route of the same wire. */
  bare?: string;
  /** For a v2 target: the v1 target served by the same process (v2's throughput as a share of it). */
  v1?: string;
}

export const BARE_V1 = 'bare route';
export const BARE_V2 = 'bare v2 route';

/** The bare row a target is compared with (reports written before v2 had only the v1 one). */
export function bareOf(target: EndpointTarget): string {
  return target.bare ?? BARE_V1;
}

/** Each v2 target with its v1 counterpart on the same server (the bare v2 route with the bare v1 one). */
export function wirePairs(targets: readonly EndpointTarget[]): { v1: string; v2: string }[] {
  return targets.flatMap((t) => (t.v1 === undefined ? [] : [{ v1: t.v1, v2: t.name }]));
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

/** v2 against v1 at one level: a v2 target and its v1 counterpart on the same server. */
export interface WireShare {
  concurrency: number;
  v1: string;
  v2: string;
  v1Result: LoadResult;
  v2Result: LoadResult;
  /** v2 requests/s ÷ v1 requests/s (the issue's bar: ≥ 0.9). */
  share: number;
}

/** The issue's bar for v2: at least this share of v1's throughput on the same server. */
export const V2_SHARE_TARGET = 0.9;

export function wireShares(report: Pick<EndpointReport, 'targets' | 'rows'>): WireShare[] {
  const out: WireShare[] = [];
  const concurrencies = [...new Set(report.rows.map((r) => r.concurrency))];
  for (const concurrency of concurrencies) {
    const at = (target: string) =>
      report.rows.find((r) => r.target === target && r.concurrency === concurrency)?.result;
    for (const pair of wirePairs(report.targets)) {
      const v1Result = at(pair.v1);
      const v2Result = at(pair.v2);
      if (v1Result && v2Result)
        out.push({ concurrency, ...pair, v1Result, v2Result, share: v2Result.rps / v1Result.rps });
    }
  }
  return out;
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

/**
 * Request bodies for the v2 route, as `DefaultChatTransport` sends them (UI messages have no `content`):
 * the same questions round-robin (the n-th request of a run asks question n, as on v1), each with a chat
 * id never used before in this process, so no request replaces another's recording. The JSON is
 * precomputed around the id, so the load generator only joins three strings per request.
 */
export function assistantBodiesV2(questions: readonly string[], prefix = 'bench-v2'): (n: number) => string {
  const MARK = '\u0000chat-id\u0000';
  const parts = questions.map((question, i) => {
    const json = JSON.stringify({
      id: MARK,
      trigger: 'submit-message',
      fp: 'anonymous',
      retrievalPageSize: 5,
      messages: [{ id: `m${i}`, role: 'user', parts: [{ type: 'text', text: question }] }],
    });
    const at = json.indexOf(JSON.stringify(MARK));
    return [json.slice(0, at + 1), json.slice(at + JSON.stringify(MARK).length - 1)] as const;
  });
  let chat = 0;
  return (n) => {
    const [before, after] = parts[n % parts.length] ?? ['{"id":"', '"}'];
    return `${before}${prefix}-${chat++}${after}`;
  };
}

interface LiveTarget extends EndpointTarget {
  process: StartedProcess<string>;
  path: string;
  headers: Record<string, string>;
  bodies: readonly string[] | ((n: number) => string);
}

export async function runEndpointBench(options: EndpointOptions): Promise<EndpointReport> {
  const log = options.log ?? (() => {});
  const warmupMs = options.warmupMs ?? 500;
  const set = await readEvalSet(options.setDir);
  const questions = set.questions.map((q) => q.question);
  const bodies = assistantBodies(questions);
  const bodiesV2 = assistantBodiesV2(questions);
  const temporary = await createTemporaryDatabase('sqlite');
  const copies: { remove(): Promise<void> }[] = [];
  const storage = await openStorage(temporary.url);
  let pages = 0;
  let assistantKey: string;
  try {
    const boot = await bootstrapSite(storage, { domain: 'bench', docsDir: set.docsDir });
    await putOnUnlimitedPlan(storage, boot.organization.id);
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
    // Resumable v2 answers are kept in the process unless REDIS_URL is set (then in Redis, as in production
    // with several processes): say which one this run measured.
    const resumeStore = process.env.REDIS_URL
      ? 'Redis, as REDIS_URL is set'
      : 'the process, as REDIS_URL is not set';
    const v2Note = `each request a new chat id, its answer recorded for resuming in ${resumeStore}`;
    const builtinV1 = 'docent (built-in answerer)';
    targets.push(
      {
        name: builtinV1,
        description:
          'Docent (the build: dist/main.js), SQLite, DOCENT_MODEL=builtin, POST /v1/assistant/bench/message: auth, thread writes, search, extractive answer',
        wire: 'v1',
        bare: BARE_V1,
        process: builtin,
        path: '/v1/assistant/bench/message',
        headers: docentHeaders,
        bodies,
      },
      {
        name: 'docent v2 (built-in)',
        description: `the same Docent process as ${builtinV1}, POST /v2/assistant/bench/message (UI message stream over SSE; ${v2Note})`,
        wire: 'v2',
        bare: BARE_V2,
        v1: builtinV1,
        process: builtin,
        path: '/v2/assistant/bench/message',
        headers: docentHeaders,
        bodies: bodiesV2,
      },
    );
    if (loopbackProvider) {
      started.push(loopbackProvider);
      // Its own copy of the database: two processes writing one SQLite file wait on each other's locks,
      // and a provider target's answers still ending after its turn would slow the next target's commits.
      const viaProviderUrl = await copySqliteDatabase(temporary.url, copies);
      const viaProvider = await startDocentServer(viaProviderUrl, {
        DOCENT_MODEL: 'openai-compatible:bench-model',
        DOCENT_MODEL_BASE_URL: `${loopbackProvider.value}/v1`,
      });
      started.push(viaProvider);
      const loopbackV1 = 'docent (loopback provider)';
      targets.push(
        {
          name: loopbackV1,
          description: `Docent with DOCENT_MODEL=openai-compatible pointed at bench/loopback-provider.ts (its own process; ${LOOPBACK_TOKENS} tokens per answer, no artificial delay), POST /v1/assistant/bench/message`,
          wire: 'v1',
          bare: BARE_V1,
          process: viaProvider,
          path: '/v1/assistant/bench/message',
          headers: docentHeaders,
          bodies,
        },
        {
          name: 'docent v2 (loopback provider)',
          description: `the same Docent process as ${loopbackV1}, POST /v2/assistant/bench/message (${v2Note})`,
          wire: 'v2',
          bare: BARE_V2,
          v1: loopbackV1,
          process: viaProvider,
          path: '/v2/assistant/bench/message',
          headers: docentHeaders,
          bodies: bodiesV2,
        },
      );
    }
    targets.push(
      {
        name: BARE_V1,
        description:
          'bench/bare-server.ts POST /message: bare Hono + ai@4.3.19 createDataStreamResponse, fixed answer',
        wire: 'v1',
        bare: BARE_V1,
        process: bare,
        path: '/message',
        headers: { 'content-type': 'application/json' },
        bodies,
      },
      {
        name: BARE_V2,
        description:
          'bench/bare-server.ts POST /message-v2: bare Hono + ai@5 (ai-v5 alias of ai@5.0.277) createUIMessageStream + createUIMessageStreamResponse, the same fixed answer as UI message chunks',
        wire: 'v2',
        bare: BARE_V2,
        v1: BARE_V1,
        process: bare,
        path: '/message-v2',
        headers: { 'content-type': 'application/json' },
        bodies: bodiesV2,
      },
    );

    const rows: EndpointRow[] = [];
    const rounds = Math.max(1, options.rounds ?? 1);
    for (const concurrency of options.concurrencies) {
      const load = (target: LiveTarget, durationMs: number) =>
        sampleLoad({
          origin: target.process.value,
          path: target.path,
          headers: target.headers,
          bodies: target.bodies,
          concurrency,
          durationMs,
        });
      // Warm-up per target and level: JIT, connection pool, the search index cache.
      for (const target of targets) await load(target, warmupMs);
      // The targets take turns, `rounds` times, and each one's rounds are pooled: a slow stretch of a
      // shared machine then falls on every target instead of on whichever was running. Every other round
      // goes in reverse order, so that v2 does not always follow v1 on the same process.
      const samples = new Map<string, LoadSamples[]>(targets.map((t) => [t.name, []]));
      for (let round = 0; round < rounds; round++) {
        for (const target of round % 2 === 0 ? targets : [...targets].reverse())
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
      targets: targets.map(({ name, description, wire, bare, v1 }) => ({
        name,
        description,
        wire,
        bare,
        ...(v1 === undefined ? {} : { v1 }),
      })),
      loopbackNote,
      rows,
    };
  } finally {
    await Promise.all(started.map((p) => stopProcess(p.child)));
    await temporary.remove();
    for (const copy of copies) await copy.remove();
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

/** A copy of a closed SQLite database in a new temporary database; its URL. */
async function copySqliteDatabase(url: string, copies: { remove(): Promise<void> }[]): Promise<string> {
  const copy = await createTemporaryDatabase('sqlite');
  copies.push(copy);
  const from = url.replace(/^sqlite:/, '');
  const to = copy.url.replace(/^sqlite:/, '');
  for (const suffix of ['', '-wal', '-shm'])
    if (fs.existsSync(`${from}${suffix}`)) fs.copyFileSync(`${from}${suffix}`, `${to}${suffix}`);
  return copy.url;
}
