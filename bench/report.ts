/**
 * npm run bench [-- --quick] [--out DIR] [--only retrieval,endpoint,ingestion,memory] [set-dir …]
 *
 * One benchmark report, measured in one run on this machine: retrieval quality and speed of Docent
 * (SQLite and PostgreSQL) beside MiniSearch, Orama, FlexSearch, Lunr and SQLite FTS5 on every eval set;
 * the assistant endpoint under load on both wires, v1 (AI SDK 4 data stream) and v2 (AI SDK 5+ UI message
 * stream, the same Docent process, the same questions; v2's throughput also as a share of v1's) beside the
 * bare ai@4.3.19 and ai@5 routes (bench/lib/endpoint.ts); ingestion throughput per corpus (cold,
 * unchanged, one page changed) on both databases; peak RSS serving the largest corpus.
 * Writes REPORT.md, REPORT.json and SVG charts to bench/ (full) or bench/out/quick/ (--quick).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { corpusDir, evalSetDir, repoRoot, sharedDir } from '../src/testing/paths.ts';
import { readTestServiceSettings } from '../src/testing/test-services.ts';
import { latencyChartSpec, qualityChartSpec, renderSvg } from './lib/charts.ts';
import { runEndpointBench } from './lib/endpoint.ts';
import { type IngestionMeasurement, type KeptSite, measureIngestion } from './lib/ingestion.ts';
import { commitInfo, machineInfo } from './lib/machine.ts';
import { measurePeakRss } from './lib/memory.ts';
import { type BenchReport, memoryBarLine, renderMarkdown } from './lib/render-report.ts';
import { runRetrievalComparison } from './lib/retrieval.ts';
import { SEARCH_ENGINES } from './lib/search-engines.ts';

const SECTIONS = ['retrieval', 'endpoint', 'ingestion', 'memory'] as const;
type Section = (typeof SECTIONS)[number];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string' },
    only: { type: 'string' },
    'postgres-url': { type: 'string' },
  },
});
const quick = values.quick ?? false;
const outDir = path.resolve(
  values.out ?? (quick ? path.join(repoRoot, 'bench/out/quick') : path.join(repoRoot, 'bench')),
);
const only = new Set((values.only?.split(',') ?? SECTIONS) as Section[]);
for (const s of only)
  if (!SECTIONS.includes(s)) throw new Error(`unknown section "${s}"; use ${SECTIONS.join(', ')}`);
const postgresUrl = values['postgres-url'] ?? readTestServiceSettings().postgresUrl;

/** What each mode measures: quick keeps every kind of measurement, on less data for less time. */
const plan = quick
  ? {
      sets: [evalSetDir('claude-docs')],
      corpora: [corpusDir('ollama')],
      endpoint: { concurrencies: [1, 8], seconds: 1, warmupMs: 200 },
      memory: { concurrency: 8, seconds: 2 },
    }
  : {
      // The shared dev sets, then Docent's own sets over the shared corpora (eval/*/set.json).
      sets: [path.join(sharedDir, 'eval'), path.join(repoRoot, 'eval')].flatMap((parent) =>
        fs
          .readdirSync(parent, { withFileTypes: true })
          .filter(
            (d) =>
              d.isDirectory() &&
              fs.existsSync(path.join(parent, d.name, 'questions.jsonl')) &&
              (fs.existsSync(path.join(parent, d.name, 'docs')) ||
                fs.existsSync(path.join(parent, d.name, 'set.json'))),
          )
          .map((d) => path.join(parent, d.name))
          .sort(),
      ),
      corpora: fs
        .readdirSync(path.join(sharedDir, 'corpora'), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => path.join(sharedDir, 'corpora', d.name))
        .sort(),
      endpoint: { concurrencies: [1, 16, 64], seconds: 8, rounds: 4, warmupMs: 500 },
      memory: { concurrency: 32, seconds: 10 },
    };
const sets = [...new Set([...plan.sets, ...positionals.map((p) => path.resolve(p))])];

const started = performance.now();
const machine = machineInfo();
const log = (line: string): void => {
  process.stderr.write(
    `[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`,
  );
};
const sectionSeconds: Record<string, number> = {};
const timed = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
  const t0 = performance.now();
  log(`${name}…`);
  try {
    return await run();
  } finally {
    sectionSeconds[name] = (performance.now() - t0) / 1000;
  }
};

const report: BenchReport = {
  generatedAt: new Date().toISOString(),
  mode: quick ? 'quick' : 'full',
  command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  machine,
  commit: commitInfo(),
  durationSeconds: 0,
  sectionSeconds,
  retrieval: null,
  endpoint: null,
  ingestion: null,
  memory: null,
  charts: [],
};

// First, while this process's heap is small: the load generator runs in this process and shares the
// two cores with the servers, so it should not be collecting every engine's index from the retrieval section.
if (only.has('endpoint')) {
  report.endpoint = await timed('endpoint', () =>
    runEndpointBench({ setDir: evalSetDir('claude-docs'), ...plan.endpoint, log }),
  );
}
if (only.has('retrieval')) {
  report.retrieval = await timed('retrieval', async () => {
    const results = [];
    for (const dir of sets) results.push(await runRetrievalComparison(dir, { postgresUrl, log }));
    return {
      sets: results,
      engines: SEARCH_ENGINES.map(({ name, version, configuration }) => ({ name, version, configuration })),
    };
  });
}

let kept: { corpus: string; pages: number; site: KeptSite } | null = null;
try {
  if (only.has('ingestion') || only.has('memory')) {
    report.ingestion = await timed('ingestion', async () => {
      // One throwaway ingestion first, so module loading and the parser workers' start-up are not billed
      // to the first corpus measured.
      const warmupCorpus = corpusDir('ollama');
      await measureIngestion(warmupCorpus, { dialect: 'sqlite', runs: ['cold'] });
      const corpora: (IngestionMeasurement & { corpusDir: string })[] = [];
      for (const dir of plan.corpora) {
        for (const dialect of ['sqlite', 'postgres'] as const) {
          if (!only.has('ingestion') && dialect === 'postgres') continue;
          const m = await measureIngestion(dir, {
            dialect,
            serverUrl: postgresUrl,
            keep: dialect === 'sqlite',
          });
          const pages = m.runs[0]?.pages ?? 0;
          if (m.kept) {
            // Keep only the largest SQLite site for the memory run.
            if (kept === null || pages > kept.pages) {
              await kept?.site.temporary.remove();
              kept = { corpus: m.corpus, pages, site: m.kept };
            } else {
              await m.kept.temporary.remove();
            }
          }
          const { kept: _kept, ...measurement } = m;
          corpora.push({ ...measurement, corpusDir: dir });
          log(
            `  ${m.corpus} ${dialect}: ${m.runs.map((r) => `${r.run} ${r.seconds.toFixed(1)} s`).join(', ')}`,
          );
        }
      }
      return {
        warmup: `Before the first measurement, \`${path.basename(warmupCorpus)}\` was ingested once into a throwaway SQLite database (not reported) so that module loading and the start-up of the parser workers are not billed to the first corpus.`,
        corpora,
      };
    });
    if (!only.has('ingestion')) report.ingestion = null;
  }

  const largest = kept as { corpus: string; pages: number; site: KeptSite } | null;
  if (only.has('memory') && largest) {
    const memory = await timed('memory', () =>
      measurePeakRss({ corpus: largest.corpus, site: largest.site, ...plan.memory }),
    );
    report.memory = memory;
    log(`  ${memory.corpus}, ${memory.concurrency} clients: ${memoryBarLine(memory).replaceAll('**', '')}`);
  }
} finally {
  await (kept as { site: KeptSite } | null)?.site.temporary.remove();
}

fs.mkdirSync(outDir, { recursive: true });
if (report.endpoint) {
  const points = report.endpoint.rows.flatMap((r) =>
    (['p50', 'p90', 'p99'] as const).map((p) => ({
      target: r.target,
      concurrency: r.concurrency,
      percentile: p,
      ms: r.result.ttfbMs[p],
    })),
  );
  const title = 'Assistant endpoint: time to first byte by concurrency';
  fs.writeFileSync(path.join(outDir, 'endpoint-ttfb.svg'), await renderSvg(latencyChartSpec(points, title)));
  report.charts.push({ file: 'endpoint-ttfb.svg', title });
}
if (report.retrieval) {
  const points = report.retrieval.sets.flatMap((s) =>
    s.rows.flatMap((r) => [
      { set: s.set, engine: r.engine, metric: 'MRR@10', value: r.mrrAt10 },
      { set: s.set, engine: r.engine, metric: 'hit@1', value: r.hitAt1 },
    ]),
  );
  const title = 'Retrieval: MRR@10 per engine and eval set';
  fs.writeFileSync(
    path.join(outDir, 'retrieval-mrr.svg'),
    await renderSvg(qualityChartSpec(points, 'MRR@10', title)),
  );
  report.charts.push({ file: 'retrieval-mrr.svg', title });
}

report.durationSeconds = (performance.now() - started) / 1000;
fs.writeFileSync(path.join(outDir, 'REPORT.json'), `${JSON.stringify(report, null, 2)}\n`);
fs.writeFileSync(path.join(outDir, 'REPORT.md'), renderMarkdown(report));
log(
  `wrote ${path.relative(process.cwd(), path.join(outDir, 'REPORT.md'))} in ${report.durationSeconds.toFixed(0)} s`,
);
