/**
 * The large site of `npm run bench:scale`, measured on one tree: `docent init` of the folder as a child
 * process (wall time, pages/s, peak RSS), the database's size on disk, then a fresh server: its start,
 * the first (cold) question to the big site while /healthz is polled every 10 ms and a small second
 * site (ollama, 61 pages, warmed first) is asked every 100 ms, the server's RSS after it, warm questions,
 * and finally the CLI's `search` on the same database (its wall time: it used to rebuild the index).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  type AskResult,
  askV1,
  type Distribution,
  distribution,
  getText,
  newAgent,
  poll,
} from './scale-http.ts';
import {
  docentCli,
  procMemory,
  type RunningServer,
  sqliteSize,
  startServer,
  stopChild,
  type Tree,
} from './scale-tree.ts';

export const BIG_DOMAIN = 'big';
export const SMALL_DOMAIN = 'small';
/** The big site's first question (ollama/docker.mdx answers it in every copy). */
export const COLD_QUESTION = 'How do I run Ollama in Docker?';

const failed = (error: unknown): AskResult => ({
  status: 0,
  firstByteMs: Number.NaN,
  firstTextMs: Number.NaN,
  totalMs: Number.NaN,
  resultPaths: [],
  citedPaths: [],
  citedDomains: [],
  text: '',
  error: error instanceof Error ? error.message : String(error),
});

export interface DiskSize {
  db: number;
  wal: number;
  shm: number;
  total: number;
}

export interface BigSiteResult {
  tree: string;
  pages: number;
  chunks: number;
  ingest: { seconds: number; pagesPerSecond: number; peakRssBytes: number; peakFrom: string };
  diskAfterIngest: DiskSize;
  diskAtEnd: DiskSize;
  server: { startSeconds: number; idleRssBytes: number };
  cold: {
    question: string;
    firstByteMs: number;
    firstTextMs: number;
    totalMs: number;
    cited: number;
    error: string | null;
    rssAfterBytes: number;
    /** Largest VmRSS sampled (every 50 ms) during the cold question. */
    rssPeakDuringBytes: number;
    rssPerPageBytes: number;
    /** (RSS after the cold question − RSS before it) per page: what the loaded index costs. */
    loadedRssPerPageBytes: number;
    healthz: Distribution & { failures: number };
    smallSite: Distribution & { failures: number };
  };
  warm: {
    questions: number;
    totalMs: Distribution;
    firstTextMs: Distribution;
    errors: number;
    uncited: number;
    rssAfterBytes: number;
  };
  cliSearch: { wallSeconds: number[]; peakRssBytes: number };
  /** Log lines of the server about its index and cache. */
  indexLog: Record<string, unknown>[];
  warnLines: number;
}

export interface BigSiteInput {
  tree: Tree;
  /** Which variant (file names and messages). */
  variant: string;
  docsDir: string;
  smallDocsDir: string;
  workDir: string;
  questions: string[];
  keep: boolean;
  log: (line: string) => void;
  /** Extra server environment. */
  serverEnv?: Record<string, string>;
}

function countRows(file: string): { pages: number; chunks: number } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const site = db.prepare('select id from sites where domain = ?').get(BIG_DOMAIN) as
      | { id: string }
      | undefined;
    if (!site) return { pages: 0, chunks: 0 };
    const count = (table: string) =>
      Number(
        (db.prepare(`select count(*) as n from ${table} where site_id = ?`).get(site.id) as { n: number }).n,
      );
    return { pages: count('pages'), chunks: count('chunks') };
  } finally {
    db.close();
  }
}

const keyOf = (stdout: string): string => {
  const parsed = JSON.parse(stdout) as { assistantKey?: string };
  if (!parsed.assistantKey) throw new Error(`init printed no assistant key: ${stdout.slice(0, 300)}`);
  return parsed.assistantKey;
};

export async function measureBigSite(input: BigSiteInput): Promise<BigSiteResult> {
  const { tree, log } = input;
  const file = path.join(input.workDir, `${input.variant}-${tree.label}.db`);
  const databaseUrl = `sqlite:${file}`;
  try {
    log(`[${input.variant} ${tree.label}] docent init --site ${BIG_DOMAIN} --docs ${input.docsDir}`);
    const init = await docentCli(tree, databaseUrl, ['init', '--site', BIG_DOMAIN, '--docs', input.docsDir]);
    const bigKey = keyOf(init.stdout);
    const { pages, chunks } = countRows(file);
    const diskAfterIngest = sqliteSize(file);
    log(
      `[${input.variant} ${tree.label}] ingested ${pages} pages (${chunks} chunks) in ${init.seconds.toFixed(1)} s, ` +
        `${(pages / init.seconds).toFixed(0)} pages/s, peak RSS ${(init.peakRssBytes / 2 ** 20).toFixed(0)} MiB`,
    );
    const small = await docentCli(tree, databaseUrl, [
      'init',
      '--site',
      SMALL_DOMAIN,
      '--docs',
      input.smallDocsDir,
    ]);
    const smallKey = keyOf(small.stdout);
    await docentCli(tree, databaseUrl, [
      'plans',
      'set',
      'free',
      '--monthly-credits',
      '1000000000',
      '--org-requests-per-hour',
      '1000000000',
      '--ip-requests-per-day',
      '1000000000',
    ]);

    const server = await startServer(tree, databaseUrl, input.serverEnv ?? {});
    let served: Awaited<ReturnType<typeof serve>>;
    try {
      served = await serve(server, input, { bigKey, smallKey, pages });
    } finally {
      await stopChild(server.child);
    }

    const question = input.questions[0] ?? 'getting started';
    const wallSeconds: number[] = [];
    let cliPeak = 0;
    for (let i = 0; i < 2; i++) {
      const run = await docentCli(tree, databaseUrl, [
        'search',
        '--site',
        BIG_DOMAIN,
        '--limit',
        '5',
        question,
      ]);
      wallSeconds.push(run.seconds);
      cliPeak = Math.max(cliPeak, run.peakRssBytes);
    }
    log(
      `[${input.variant} ${tree.label}] CLI search: ${wallSeconds.map((s) => `${s.toFixed(2)} s`).join(', ')}`,
    );
    return {
      tree: tree.label,
      pages,
      chunks,
      ingest: {
        seconds: init.seconds,
        pagesPerSecond: pages / init.seconds,
        peakRssBytes: init.peakRssBytes,
        peakFrom: init.peakFrom,
      },
      diskAfterIngest,
      diskAtEnd: sqliteSize(file),
      ...served,
      cliSearch: { wallSeconds, peakRssBytes: cliPeak },
    };
  } finally {
    if (!input.keep)
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  }
}

async function serve(
  server: RunningServer,
  input: BigSiteInput,
  keys: { bigKey: string; smallKey: string; pages: number },
) {
  const { tree, log } = input;
  const tag = `[${input.variant} ${tree.label}]`;
  const idleRss = procMemory(server.pid)?.rss ?? Number.NaN;
  log(
    `${tag} server listening after ${server.startSeconds.toFixed(2)} s, RSS ${(idleRss / 2 ** 20).toFixed(0)} MiB`,
  );
  const smallAgent = newAgent(false);
  const bigAgent = newAgent();
  const healthAgent = newAgent(false);
  try {
    // The small site's index is loaded before the big site's cold question.
    const smallQuestion = 'How do I use a GPU?';
    await askV1(server.origin, SMALL_DOMAIN, keys.smallKey, smallQuestion, smallAgent);

    const question = COLD_QUESTION;
    const before = procMemory(server.pid)?.rss ?? Number.NaN;
    let peakDuring = before;
    const sampler = setInterval(() => {
      const rss = procMemory(server.pid)?.rss;
      if (rss !== undefined && rss > peakDuring) peakDuring = rss;
    }, 50);
    const health = poll(async () => {
      const r = await getText(server.origin, '/healthz', healthAgent);
      if (r.status !== 200) throw new Error(`healthz ${r.status}`);
    }, 10);
    const smallPoll = poll(async () => {
      const r = await askV1(server.origin, SMALL_DOMAIN, keys.smallKey, smallQuestion, smallAgent);
      if (r.error) throw new Error(r.error);
    }, 100);
    let cold: AskResult;
    try {
      cold = await askV1(server.origin, BIG_DOMAIN, keys.bigKey, question, bigAgent);
    } finally {
      clearInterval(sampler);
    }
    const healthLatencies = await health.stop();
    const smallLatencies = await smallPoll.stop();
    const rssAfter = procMemory(server.pid)?.rss ?? Number.NaN;
    peakDuring = Math.max(peakDuring, rssAfter);
    const healthz = { ...distribution(healthLatencies), failures: health.failures() };
    const smallSite = { ...distribution(smallLatencies), failures: smallPoll.failures() };
    log(
      `${tag} cold question: first text ${cold.firstTextMs.toFixed(0)} ms, end ${cold.totalMs.toFixed(0)} ms; ` +
        `RSS ${(rssAfter / 2 ** 20).toFixed(0)} MiB; /healthz p99 ${healthz.p99.toFixed(1)} ms (max ${healthz.max.toFixed(0)} ms, ${healthz.n} polls); ` +
        `small site p99 ${smallSite.p99.toFixed(0)} ms`,
    );

    const totals: number[] = [];
    const firstTexts: number[] = [];
    let errors = 0;
    let uncited = 0;
    for (const q of input.questions) {
      const r = await askV1(server.origin, BIG_DOMAIN, keys.bigKey, q, bigAgent).catch(
        (error: unknown): AskResult => failed(error),
      );
      if (r.error) errors += 1;
      else {
        totals.push(r.totalMs);
        firstTexts.push(r.firstTextMs);
        if (r.citedPaths.length === 0) uncited += 1;
      }
    }
    const warmRss = procMemory(server.pid)?.rss ?? Number.NaN;
    const warm = {
      questions: input.questions.length,
      totalMs: distribution(totals),
      firstTextMs: distribution(firstTexts.filter((t) => !Number.isNaN(t))),
      errors,
      uncited,
      rssAfterBytes: warmRss,
    };
    log(
      `${tag} warm: ${warm.questions} questions, p50 ${warm.totalMs.p50.toFixed(1)} ms, p99 ${warm.totalMs.p99.toFixed(1)} ms, ` +
        `${errors} errors, ${uncited} without citations`,
    );
    return {
      server: { startSeconds: server.startSeconds, idleRssBytes: idleRss },
      cold: {
        question,
        firstByteMs: cold.firstByteMs,
        firstTextMs: cold.firstTextMs,
        totalMs: cold.totalMs,
        cited: cold.citedPaths.length,
        error: cold.error,
        rssAfterBytes: rssAfter,
        rssPeakDuringBytes: peakDuring,
        rssPerPageBytes: rssAfter / keys.pages,
        loadedRssPerPageBytes: (rssAfter - before) / keys.pages,
        healthz,
        smallSite,
      },
      warm,
      indexLog: server.indexLog.slice(-200),
      warnLines: (server.levels.warn ?? 0) + (server.levels.error ?? 0),
    };
  } finally {
    for (const agent of [smallAgent, bigAgent, healthAgent]) agent.destroy();
  }
}
