/**
 * The report model (what REPORT.json holds) and its Markdown rendering. Every statement in the
 * Markdown is computed from the measured figures; nothing here is a hard-coded result.
 * The endpoint section has a row per target and level, v1 and v2 wires alike (v2 rows: the same
 * Docent process asked on POST /v2/…, and the bare ai@5 route); each row's "% of bare" is against the
 * bare route of its own wire, and a v2 row's "% of v1" against its v1 counterpart on the same server.
 */
import { BARE_V1, bareOf, type EndpointReport, V2_SHARE_TARGET, wireShares } from './endpoint.ts';
import type { IngestionMeasurement } from './ingestion.ts';
import type { CommitInfo, MachineInfo } from './machine.ts';
import type { MemoryMeasurement } from './memory.ts';
import type { RetrievalRow, RetrievalSetReport } from './retrieval.ts';

export interface EngineDescription {
  name: string;
  version: string;
  configuration: string;
}

export interface BenchReport {
  generatedAt: string;
  mode: 'full' | 'quick';
  command: string;
  machine: MachineInfo;
  commit: CommitInfo;
  durationSeconds: number;
  sectionSeconds: Record<string, number>;
  retrieval: { sets: RetrievalSetReport[]; engines: EngineDescription[] } | null;
  endpoint: EndpointReport | null;
  ingestion: { warmup: string; corpora: (IngestionMeasurement & { corpusDir: string })[] } | null;
  memory: MemoryMeasurement | null;
  charts: { file: string; title: string }[];
}

const f3 = (n: number): string => (Number.isFinite(n) ? n.toFixed(3) : 'n/a');
const ms = (n: number): string =>
  !Number.isFinite(n) ? 'n/a' : n < 1 ? n.toFixed(3) : n < 100 ? n.toFixed(1) : n.toFixed(0);
const secs = (n: number): string => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const mib = (bytes: number): string =>
  Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(0)} MiB` : 'n/a';

const table = (head: string[], rows: string[][]): string =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

const isDocent = (row: RetrievalRow): boolean => row.engine.startsWith('Docent');

/** Where the best competitor beats Docent on SQLite, per set and metric: the honest list. */
export function docentLosses(sets: readonly RetrievalSetReport[]): string[] {
  const out: string[] = [];
  const higher: [keyof RetrievalRow, string][] = [
    ['hitAt1', 'hit@1'],
    ['hitAt5', 'hit@5'],
    ['hitAt10', 'hit@10'],
    ['mrrAt10', 'MRR@10'],
  ];
  const lower: [keyof RetrievalRow, string, (n: number) => string][] = [
    ['p50Ms', 'query p50', (n) => `${ms(n)} ms`],
    ['p99Ms', 'query p99', (n) => `${ms(n)} ms`],
    ['buildSeconds', 'index build time', (n) => `${secs(n)} s`],
  ];
  for (const set of sets) {
    for (const docent of set.rows.filter(isDocent)) {
      const others = set.rows.filter((r) => !isDocent(r));
      for (const [key, label] of higher) {
        const better = others.filter((r) => (r[key] as number) > (docent[key] as number));
        if (better.length > 0)
          out.push(
            `${set.set}, ${docent.engine}: ${label} ${f3(docent[key] as number)} is beaten by ${better.map((r) => `${r.engine} (${f3(r[key] as number)})`).join(', ')}`,
          );
      }
      for (const [key, label, fmt] of lower) {
        const better = others.filter((r) => (r[key] as number) < (docent[key] as number));
        if (better.length > 0)
          out.push(
            `${set.set}, ${docent.engine}: ${label} ${fmt(docent[key] as number)} is beaten by ${better.map((r) => `${r.engine} (${fmt(r[key] as number)})`).join(', ')}`,
          );
      }
    }
  }
  return out;
}

function summary(report: BenchReport): string[] {
  const lines: string[] = [];
  if (report.retrieval) {
    for (const set of report.retrieval.sets) {
      const byMrr = [...set.rows].sort((a, b) => b.mrrAt10 - a.mrrAt10);
      const best = byMrr[0];
      const bestOther = byMrr.find((r) => !isDocent(r));
      const docent = set.rows.find((r) => r.engine === 'Docent (SQLite)');
      if (best && bestOther && docent)
        lines.push(
          `- **${set.set}** (${set.questions} questions): best MRR@10 ${f3(best.mrrAt10)} (${best.engine}); Docent ${f3(docent.mrrAt10)} (hit@1 ${f3(docent.hitAt1)}) vs the best other engine, ${bestOther.engine}, ${f3(bestOther.mrrAt10)} (hit@1 ${f3(bestOther.hitAt1)}).`,
        );
    }
  }
  if (report.endpoint) {
    const top = Math.max(...report.endpoint.concurrencies);
    const at = (target: string) =>
      report.endpoint?.rows.find((r) => r.target === target && r.concurrency === top)?.result;
    const bareNames = new Set(report.endpoint.targets.map(bareOf));
    for (const target of report.endpoint.targets.filter((t) => !bareNames.has(t.name))) {
      const r = at(target.name);
      const bareName = bareOf(target);
      const bare = at(bareName);
      if (r && bare)
        lines.push(
          `- **Endpoint at ${top} clients**: ${target.name} ${r.rps.toFixed(0)} req/s (${((r.rps / bare.rps) * 100).toFixed(0)} % of the ${bareName}'s ${bare.rps.toFixed(0)}), TTFB p99 ${ms(r.ttfbMs.p99)} ms vs ${ms(bare.ttfbMs.p99)} ms.`,
        );
    }
    const shares = wireShares(report.endpoint).filter((s) => !bareNames.has(s.v2));
    if (shares.length > 0)
      lines.push(
        `- **v2 throughput as a share of v1** (same server; target ≥ ${V2_SHARE_TARGET * 100} %): ${shares
          .map(
            (s) =>
              `${s.v2} at ${s.concurrency} client${s.concurrency === 1 ? '' : 's'} ${(s.share * 100).toFixed(0)} %`,
          )
          .join(', ')}.`,
      );
  }
  if (report.ingestion) {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const cold = report.ingestion.corpora
        .filter((c) => c.dialect === dialect)
        .map((c) => c.runs.find((r) => r.run === 'cold'))
        .filter((r) => r !== undefined);
      if (cold.length === 0) continue;
      const pages = cold.reduce((a, r) => a + r.pages, 0);
      const seconds = cold.reduce((a, r) => a + r.seconds, 0);
      lines.push(
        `- **Cold ingestion, ${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}**: ${pages} pages in ${secs(seconds)} s over ${cold.length} ${cold.length === 1 ? 'corpus' : 'corpora'} (${(pages / seconds).toFixed(0)} pages/s overall).`,
      );
    }
  }
  if (report.memory)
    lines.push(
      `- **Memory**: peak RSS ${mib(report.memory.peakRssBytes)} serving ${report.memory.corpus} (${report.memory.pages} pages) at ${report.memory.concurrency} clients.`,
    );
  return lines;
}

export function renderMarkdown(report: BenchReport): string {
  const m = report.machine;
  const out: string[] = [];
  out.push('# Docent benchmark report', '');
  out.push(
    `Generated by \`${report.command}\` (${report.mode} mode) — every figure below was measured in this one run on this machine.`,
    '',
  );
  out.push(
    table(
      ['', ''],
      [
        ['date', report.generatedAt],
        [
          'commit',
          `${report.commit.commit}${report.commit.dirty ? ' (with uncommitted changes in the work tree)' : ''}`,
        ],
        ['machine', `${m.cores} × ${m.cpuModel}, ${m.memoryGiB} GiB memory, ${m.platform}`],
        ['Node', m.node],
        [
          'load average at start',
          `${m.loadAverageAtStart} (1 min; anything near or above ${m.cores} means other work shared the CPUs and slowed the figures)`,
        ],
        [
          'run time',
          `${secs(report.durationSeconds)} s (${Object.entries(report.sectionSeconds)
            .map(([k, v]) => `${k} ${secs(v)} s`)
            .join(', ')})`,
        ],
      ],
    ),
    '',
  );
  const sum = summary(report);
  if (sum.length > 0) out.push('## Summary', '', ...sum, '');

  if (report.retrieval) {
    out.push('## Retrieval quality and speed', '');
    out.push(
      'Data: the eval sets below (`questions.jsonl` with `docs/`, or with a `set.json` naming a shared corpus; format in `../shared/eval/README.md` and `eval/README.md`; every engine is scored on the answerable questions). ' +
        '**Docent** runs through `runEval` (`src/eval/run-eval.ts`): the real ingestion into a throwaway database ' +
        '(a SQLite file, or a fresh database on the PostgreSQL server), then every question through `SiteSearch`, ' +
        'the search the endpoint uses, including its per-query check of the site generation in the database. ' +
        'The **other engines** are given exactly the pages and chunks `loadDocsFolder` produced, one document per chunk ' +
        '(page title, the chunk headings, the chunk text), in memory in this process. ' +
        `Every engine returns up to 50 chunks per question (200 for questions with a version/language filter, then ` +
        'chunks of pages outside the filter are dropped — Docent filters inside its search); results are reduced to ' +
        'distinct pages in rank order and scored by `scoreResults` (`src/search/metrics.ts`): hit@k = a relevant page ' +
        'among the first k, MRR@10 = mean 1/rank of the first relevant page. Latency is wall time per question, one ' +
        'warm-up query first, questions in file order, one at a time; p50/p99 are nearest-rank percentiles. ' +
        '**Index build time** is, for Docent, the whole ingestion (read, parse, analyse, write to the database); for the ' +
        'others, building the index from already-loaded chunks (the load time is given per set and is not included).',
      '',
    );
    for (const set of report.retrieval.sets) {
      out.push(
        `### ${set.set}`,
        '',
        `\`${set.setDir}\`: ${set.pages} pages, ${set.chunks} chunks, ${set.questions} questions; \`loadDocsFolder\` took ${secs(set.loadSeconds)} s.`,
        '',
      );
      out.push(
        table(
          ['engine', 'hit@1', 'hit@5', 'hit@10', 'MRR@10', 'query p50 ms', 'query p99 ms', 'index build s'],
          set.rows.map((r) => [
            isDocent(r) ? `**${r.engine}**` : r.engine,
            f3(r.hitAt1),
            f3(r.hitAt5),
            f3(r.hitAt10),
            f3(r.mrrAt10),
            ms(r.p50Ms),
            ms(r.p99Ms),
            secs(r.buildSeconds),
          ]),
        ),
        '',
      );
    }
    const losses = docentLosses(report.retrieval.sets);
    out.push('### Where Docent loses', '');
    out.push(
      ...(losses.length > 0
        ? losses.map((l) => `- ${l}`)
        : ['- Nowhere in this run: Docent had the best value of every metric on every set.']),
      '',
    );
    out.push('### Engine configurations', '');
    for (const e of report.retrieval.engines)
      out.push(`- **${e.name}** (\`${e.version}\`): ${e.configuration}`);
    out.push('');
  }

  if (report.endpoint) {
    const e = report.endpoint;
    out.push('## The endpoint under load', '');
    const hasV2 = e.targets.some((t) => t.wire === 'v2');
    out.push(
      `Data: \`${e.setDir}\` (${e.pages} pages) is the site; its ${e.questions} questions are the requests, round-robin, each a ` +
        (hasV2
          ? '`POST /v1/assistant/bench/message` (AI SDK 4 data stream) or, on the v2 rows, `POST /v2/assistant/bench/message` ' +
            '(AI SDK 5+ UI message stream over SSE, a new chat id per request) with one user message, the same questions on both wires. '
          : '`POST /v1/assistant/bench/message` with one user message. ') +
        'Load generator: our own closed-loop client over ' +
        '**undici** (`bench/load.ts`): N clients on a keep-alive pool, each sends a request, reads the response to the ' +
        `end, sends the next; ${e.secondsPerRun} s per target and level after a ${e.warmupMs} ms warm-up at the same concurrency, ` +
        `taken in ${e.rounds} turn${e.rounds === 1 ? '' : 's'} with the targets alternating and pooled (so a slow stretch of the machine falls on every target). ` +
        'TTFB is the time to the first body byte (the first stream part or SSE chunk), total is the time to the end of the stream. ' +
        'Every server is its own Node process on this machine, sharing its cores with the load generator.' +
        (hasV2
          ? " **% of bare** is against the bare route of the row's own wire; **% of v1** (v2 rows) is the v2 target's " +
            `throughput as a share of its v1 counterpart on the same server (target ≥ ${V2_SHARE_TARGET * 100} %; ` +
            "on the bare v2 route's row, against the bare route: the SDKs' own difference, for reference)."
          : ''),
      '',
    );
    for (const t of e.targets) out.push(`- **${t.name}**: ${t.description}`);
    if (e.loopbackNote) out.push(`- Note: ${e.loopbackNote}.`);
    out.push('');
    const rpsOf = new Map(e.rows.map((r) => [`${r.target}@${r.concurrency}`, r.result.rps]));
    const targetOf = new Map(e.targets.map((t) => [t.name, t]));
    const pct = (a: number, b: number | undefined): string =>
      b === undefined ? 'n/a' : `${((a / b) * 100).toFixed(0)} %`;
    out.push(
      table(
        [
          'target',
          ...(hasV2 ? ['wire'] : []),
          'clients',
          'req/s',
          '% of bare',
          ...(hasV2 ? ['% of v1'] : []),
          'TTFB p50 ms',
          'TTFB p90 ms',
          'TTFB p99 ms',
          'total p50 ms',
          'total p99 ms',
          'requests',
          'errors',
        ],
        e.rows.map(({ target, concurrency, result: r }) => {
          const t = targetOf.get(target);
          const v1 = t?.v1;
          return [
            target,
            ...(hasV2 ? [t?.wire ?? 'v1'] : []),
            String(concurrency),
            r.rps.toFixed(0),
            pct(r.rps, rpsOf.get(`${t ? bareOf(t) : BARE_V1}@${concurrency}`)),
            ...(hasV2 ? [v1 === undefined ? '' : pct(r.rps, rpsOf.get(`${v1}@${concurrency}`))] : []),
            ms(r.ttfbMs.p50),
            ms(r.ttfbMs.p90),
            ms(r.ttfbMs.p99),
            ms(r.totalMs.p50),
            ms(r.totalMs.p99),
            String(r.requests),
            r.errors === 0
              ? '0'
              : `${r.errors} (${Object.entries(r.failures)
                  .map(([k, v]) => `${k}: ${v}`)
                  .join(', ')})`,
          ];
        }),
      ),
      '',
    );
  }

  if (report.ingestion) {
    out.push('## Ingestion', '');
    out.push(
      'Data: each corpus in `../shared/corpora`, copied to a temp folder. Each is ingested with `ingestSite` into a fresh ' +
        'database (a SQLite file, or a fresh database on the PostgreSQL server) three times in a row: **cold** (empty ' +
        'database), **unchanged** (same files again: every page is still read, parsed and hashed, nothing is written), ' +
        'and **one page changed** (one paragraph appended to one page in the copy). Pages/s = pages the site has after ' +
        `the run ÷ wall time of the run. ${report.ingestion.warmup}`,
      '',
    );
    out.push(
      table(
        [
          'corpus',
          'database',
          'pages',
          'cold s (pages/s)',
          'unchanged s (pages/s)',
          'one changed s (pages/s)',
          'written (cold / unchanged / changed)',
        ],
        report.ingestion.corpora.map((c) => {
          const run = (name: string) => c.runs.find((r) => r.run === name);
          const cell = (name: string) => {
            const r = run(name);
            return r ? `${secs(r.seconds)} (${r.pagesPerSecond.toFixed(0)})` : 'n/a';
          };
          return [
            c.corpus,
            c.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL',
            String(run('cold')?.pages ?? 'n/a'),
            cell('cold'),
            cell('unchanged'),
            cell('one page changed'),
            c.runs.map((r) => String(r.written)).join(' / '),
          ];
        }),
      ),
      '',
    );
  }

  if (report.memory) {
    const mem = report.memory;
    out.push('## Memory under load', '');
    out.push(
      `Data: the largest corpus ingested above, **${mem.corpus}** (${mem.pages} pages, ${mem.chunks} chunks, SQLite), served by ` +
        `one Docent process (the production build, \`dist/main.js\` as \`npm start\` runs it; built-in answerer) while ${mem.concurrency} undici clients send assistant requests ` +
        `for ${mem.seconds} s (the ${mem.queries} page titles of the corpus as questions, round-robin, after a warm-up). ` +
        "Resident memory is read from the server's `/proc/<pid>/status`: VmRSS sampled every 100 ms, VmHWM (the kernel's " +
        'peak) at the end.',
      '',
    );
    out.push(
      table(
        [
          'idle RSS after start',
          'peak RSS sampled under load',
          'peak RSS (VmHWM)',
          'req/s during the run',
          'TTFB p50 / p99 ms',
          'errors',
        ],
        [
          [
            mib(mem.idleRssBytes),
            mib(mem.sampledPeakRssBytes),
            mib(mem.peakRssBytes),
            mem.load.rps.toFixed(0),
            `${ms(mem.load.ttfbMs.p50)} / ${ms(mem.load.ttfbMs.p99)}`,
            errorsWithReasons(mem.load),
          ],
        ],
      ),
      '',
      memoryBarLine(mem),
      '',
    );
  }

  if (report.charts.length > 0) {
    out.push('## Charts', '');
    for (const c of report.charts) out.push(`![${c.title}](${c.file})`, '');
  }
  out.push(
    '## Reproduce',
    '',
    '`npm run bench` (about 10 minutes on 2 cores; writes `bench/REPORT.md`, `bench/REPORT.json` and the SVG charts) or ' +
      '`npm run bench -- --quick` (under a minute; smaller data, shorter runs; writes to `bench/out/quick/`). ' +
      'Extra eval sets: `npm run bench -- path/to/set …`. Needs PostgreSQL at `DOCENT_TEST_POSTGRES_URL` ' +
      '(default `postgres://postgres@127.0.0.1:5432/postgres`). Figures move with machine load; compare runs on a quiet machine.',
    '',
  );
  return out.join('\n');
}

/** Issue #14's bar: the production build serving the largest corpus at 32 clients peaks under 300 MB. */
export const MEMORY_BAR_BYTES = 300_000_000;

export function memoryBarLine(mem: MemoryMeasurement): string {
  const verdict =
    mem.concurrency !== 32
      ? `not judged: this run used ${mem.concurrency} clients (the bar is for 32)`
      : mem.load.errors > 0
        ? 'not judged: requests failed during the run'
        : mem.peakRssBytes < MEMORY_BAR_BYTES
          ? '**met**'
          : '**not met**';
  return `Bar: peak RSS under 300 MB (${mib(MEMORY_BAR_BYTES)}) at 32 clients; measured ${mib(mem.peakRssBytes)}: ${verdict}.`;
}

function errorsWithReasons(load: { errors: number; failures: Record<string, number> }): string {
  const reasons = Object.entries(load.failures).map(([why, n]) => `${n} ${why}`);
  return reasons.length === 0 ? String(load.errors) : `${load.errors} (${reasons.join(', ')})`;
}
