/**
 * The many-sites part of `npm run bench:scale`, on one tree: the planned sites are written in one child
 * process through the tree's own library (bench/lib/scale-write-sites.ts: wall time, pages/s, peak RSS;
 * by default each corpus is parsed once and the sites' rows copied from it, a few sampled sites checked
 * row for row against a real ingestion; --write-by-ingestion ingests every site), then a fresh server
 * with a small index cache (`DOCENT_INDEX_CACHE_MB`; a tree that does not know the variable ignores it)
 * is asked each site's question, every site in a random order, twice. An answer is
 * correct when it cites at least one page and every cited page, and every page the search tool
 * returned, is a page of that site (stored paths start with the site's domain, so a result from another
 * site's index shows). RSS is sampled throughout; the server's log lines about its index and cache, and
 * its index/cache metrics (`/metrics`), are collected. A watchdog stops the round when the server's RSS
 * passes a limit (an unbounded cache grows until the machine runs out), and says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CopyStats } from './scale-copy-sites.ts';
import { type PlannedSite, seededRandom, shuffled } from './scale-corpus.ts';
import { type AskResult, askV1, type Distribution, distribution, getText, newAgent } from './scale-http.ts';
import { procMemory, runNodeTimed, sqliteSize, startServer, stopChild, type Tree } from './scale-tree.ts';
import type { WriteMode, WriteSitesJob, WriteSitesResult } from './scale-write-sites.ts';

const WRITER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'scale-write-sites.ts');
const METRICS_TOKEN = 'bench-scale-metrics-token-0123456789';

export interface RoundResult {
  round: number;
  asked: number;
  correct: number;
  /** Answers citing (or searching up) a page of another site. */
  wrongSite: number;
  /** Answers without any citation. */
  uncited: number;
  errors: number;
  /** The page the question was taken from among the search tool's results. */
  sourcePageFound: number;
  totalMs: Distribution;
  rssAfterBytes: number;
  rssPeakBytes: number;
  /** Why the round stopped early, if it did. */
  stopped: string | null;
}

export interface ManySitesResult {
  tree: string;
  sites: number;
  pages: number;
  write: {
    seconds: number;
    pagesPerSecond: number;
    peakRssBytes: number;
    peakFrom: string;
    mode: WriteMode;
    /** Set when a copy was asked for and the tree could not do it. */
    modeNote: string | null;
    /** The copy writer's phases, templates and sampled check (null when written by ingestion). */
    copy: CopyStats | null;
  };
  disk: { db: number; wal: number; shm: number; total: number };
  cacheMb: number;
  server: { startSeconds: number; idleRssBytes: number };
  rounds: RoundResult[];
  /** Index/cache log messages and how often each came, and the last such line in full. */
  cacheLog: { messages: Record<string, number>; last: Record<string, unknown> | null };
  /** `/metrics` lines about the index or its cache (none when the tree has no such metrics). */
  cacheMetrics: string[];
  warnLines: number;
  examplesWrong: string[];
  /** A few uncited answers of the first round: the question, what was found and the answer's start. */
  examplesUncited: string[];
}

export interface ManySitesInput {
  tree: Tree;
  plan: PlannedSite[];
  corporaDir: string;
  workDir: string;
  cacheMb: number;
  seed: number;
  /** Stop a round when the server's RSS passes this many bytes. */
  rssLimitBytes: number;
  /** Ingest every site (bootstrapSite per site) instead of copying rows from one ingestion per corpus. */
  writeByIngestion: boolean;
  /** Sites the copy writer ingests for real as well and compares with their copies. */
  checkSites: number;
  keep: boolean;
  log: (line: string) => void;
}

export async function measureManySites(input: ManySitesInput): Promise<ManySitesResult> {
  const { tree, log } = input;
  const tag = `[many sites ${tree.label}]`;
  const file = path.join(input.workDir, `many-sites-${tree.label}.db`);
  const databaseUrl = `sqlite:${file}`;
  const checkFile = path.join(input.workDir, `many-sites-${tree.label}-check.db`);
  const siteDir = path.join(input.workDir, `many-sites-docs-${tree.label}`);
  const jobFile = path.join(input.workDir, `many-sites-job-${tree.label}.json`);
  const resultFile = path.join(input.workDir, `many-sites-result-${tree.label}.json`);
  try {
    const job: WriteSitesJob = {
      root: tree.root,
      databaseUrl,
      checkDatabaseUrl: `sqlite:${checkFile}`,
      corporaDir: input.corporaDir,
      workDir: siteDir,
      sites: input.plan,
      mode: input.writeByIngestion ? 'ingestion' : 'copy',
      checkSites: input.checkSites,
      seed: input.seed,
    };
    fs.writeFileSync(jobFile, JSON.stringify(job));
    log(
      `${tag} writing ${input.plan.length} sites through the library (one process, ${
        input.writeByIngestion
          ? 'each site ingested'
          : `each corpus ingested once and copied, ${input.checkSites} sampled sites ingested and compared`
      })`,
    );
    const run = await runNodeTimed(tree, ['--import', 'tsx', WRITER, jobFile, resultFile], {}, (line) =>
      log(`${tag} ${line.trim()}`),
    );
    if (run.code !== 0) throw new Error(`${tag} site writer exited ${run.code}: ${run.stderr.slice(-2000)}`);
    const written = JSON.parse(fs.readFileSync(resultFile, 'utf8')) as WriteSitesResult;
    // The copy writer's templates and sampled ingestions are not part of what is served.
    if (!input.keep)
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${checkFile}${suffix}`, { force: true });
    const disk = sqliteSize(file);
    const keys = new Map(written.sites.map((s) => [s.domain, s.assistantKey]));

    const server = await startServer(tree, databaseUrl, {
      DOCENT_INDEX_CACHE_MB: String(input.cacheMb),
      DOCENT_METRICS_TOKEN: METRICS_TOKEN,
    });
    const idleRss = procMemory(server.pid)?.rss ?? Number.NaN;
    const rounds: RoundResult[] = [];
    const examplesWrong: string[] = [];
    const examplesUncited: string[] = [];
    let cacheMetrics: string[] = [];
    const agent = newAgent();
    const random = seededRandom(input.seed + 7);
    try {
      for (let round = 1; round <= 2; round++) {
        const r: RoundResult = {
          round,
          asked: 0,
          correct: 0,
          wrongSite: 0,
          uncited: 0,
          errors: 0,
          sourcePageFound: 0,
          totalMs: distribution([]),
          rssAfterBytes: Number.NaN,
          rssPeakBytes: 0,
          stopped: null,
        };
        const latencies: number[] = [];
        const sampler = setInterval(() => {
          r.rssPeakBytes = Math.max(r.rssPeakBytes, procMemory(server.pid)?.rss ?? 0);
        }, 100);
        sampler.unref();
        for (const site of shuffled(input.plan, random)) {
          const rss = procMemory(server.pid)?.rss ?? 0;
          r.rssPeakBytes = Math.max(r.rssPeakBytes, rss);
          if (rss > input.rssLimitBytes) {
            r.stopped = `server RSS ${(rss / 2 ** 30).toFixed(1)} GiB passed the limit of ${(input.rssLimitBytes / 2 ** 30).toFixed(1)} GiB after ${r.asked} answers`;
            break;
          }
          const key = keys.get(site.domain);
          if (!key) throw new Error(`${tag} no key for ${site.domain}`);
          const answer = await askV1(server.origin, site.domain, key, site.question, agent).catch(
            (error: unknown) =>
              ({ error: error instanceof Error ? error.message : String(error) }) as AskResult,
          );
          r.asked += 1;
          if (answer.error) {
            r.errors += 1;
            if (examplesWrong.length < 5) examplesWrong.push(`${site.domain}: ${answer.error}`);
            continue;
          }
          latencies.push(answer.totalMs);
          const prefix = `${site.domain}/`;
          const foreign = [...answer.citedPaths, ...answer.resultPaths].filter((p) => !p.startsWith(prefix));
          const foreignDomain = answer.citedDomains.filter((d) => d !== site.domain);
          if (answer.resultPaths.includes(site.questionPage)) r.sourcePageFound += 1;
          if (foreign.length > 0 || foreignDomain.length > 0) {
            r.wrongSite += 1;
            if (examplesWrong.length < 5)
              examplesWrong.push(
                `${site.domain} "${site.question}": ${[...foreign, ...foreignDomain].slice(0, 3).join(', ')}`,
              );
          } else if (answer.citedPaths.length === 0) {
            r.uncited += 1;
            if (round === 1 && examplesUncited.length < 5)
              examplesUncited.push(
                `${site.domain} "${site.question}" (${answer.resultPaths.length} results${
                  answer.resultPaths.includes(site.questionPage) ? ', its page among them' : ''
                }): ${JSON.stringify(answer.text.slice(0, 120))}`,
              );
          } else r.correct += 1;
        }
        clearInterval(sampler);
        r.totalMs = distribution(latencies);
        r.rssAfterBytes = procMemory(server.pid)?.rss ?? Number.NaN;
        r.rssPeakBytes = Math.max(r.rssPeakBytes, r.rssAfterBytes);
        rounds.push(r);
        log(
          `${tag} round ${round}: ${r.correct}/${r.asked} correct, ${r.wrongSite} wrong site, ${r.uncited} uncited, ` +
            `${r.errors} errors; p50 ${r.totalMs.p50.toFixed(1)} ms, p99 ${r.totalMs.p99.toFixed(1)} ms; ` +
            `RSS ${(r.rssAfterBytes / 2 ** 20).toFixed(0)} MiB${r.stopped ? `; stopped: ${r.stopped}` : ''}`,
        );
        if (r.stopped) break;
      }
      const metrics = await getText(server.origin, '/metrics', agent, {
        authorization: `Bearer ${METRICS_TOKEN}`,
      }).catch(() => null);
      if (metrics?.status === 200)
        cacheMetrics = metrics.body
          .split('\n')
          .filter((l) => l !== '' && !l.startsWith('#') && /index|cache/i.test(l));
    } finally {
      agent.destroy();
      await stopChild(server.child);
    }
    const messages: Record<string, number> = {};
    for (const entry of server.indexLog) {
      const msg = String(entry.msg);
      messages[msg] = (messages[msg] ?? 0) + 1;
    }
    return {
      tree: tree.label,
      sites: written.sites.length,
      pages: written.pages,
      write: {
        seconds: run.seconds,
        pagesPerSecond: written.pages / written.seconds,
        peakRssBytes: run.peakRssBytes,
        peakFrom: run.peakFrom,
        mode: written.mode,
        modeNote: written.modeNote,
        copy: written.copy,
      },
      disk,
      cacheMb: input.cacheMb,
      server: { startSeconds: server.startSeconds, idleRssBytes: idleRss },
      rounds,
      cacheLog: { messages, last: server.indexLog.at(-1) ?? null },
      cacheMetrics,
      warnLines: (server.levels.warn ?? 0) + (server.levels.error ?? 0),
      examplesWrong,
      examplesUncited,
    };
  } finally {
    fs.rmSync(siteDir, { recursive: true, force: true });
    for (const f of [jobFile, resultFile]) fs.rmSync(f, { force: true });
    if (!input.keep)
      for (const db of [file, checkFile])
        for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${db}${suffix}`, { force: true });
  }
}
