/**
 * Page-level retrieval on an eval set: Docent through `runEval` (the real ingestion into a throwaway
 * SQLite or PostgreSQL database, then `SiteSearch`, the endpoint's search) beside the competing engines
 * of search-engines.ts given the same pages from `loadDocsFolder`. Everything is scored by `scoreResults`
 * (results reduced to distinct pages in rank order) with the same chunk budget per question.
 */
import { EVAL_CHUNK_LIMIT, type EvalReport, runEval } from '../../src/eval/run-eval.ts';
import { loadDocsFolder } from '../../src/ingest/load-docs-folder.ts';
import type { ParsedPage } from '../../src/ingest/types.ts';
import { type EvalQuestion, readEvalSet } from '../../src/search/eval-set.ts';
import { percentile, type QuestionResult, scoreResults } from '../../src/search/metrics.ts';
import { chunkDocuments, SEARCH_ENGINES, type SearchEngine } from './search-engines.ts';

export interface RetrievalRow {
  engine: string;
  /** Package/version, or the database for Docent. */
  version: string;
  questions: number;
  hitAt1: number;
  hitAt5: number;
  hitAt10: number;
  mrrAt10: number;
  p50Ms: number;
  p99Ms: number;
  /** Docent: the whole ingestion (load + parse + analyse + write); others: building the index from loaded chunks. */
  buildSeconds: number;
}

export interface RetrievalSetReport {
  set: string;
  setDir: string;
  pages: number;
  chunks: number;
  questions: number;
  /** `loadDocsFolder` time for the pages the competing engines were given (not in their build time). */
  loadSeconds: number;
  rows: RetrievalRow[];
}

export interface RetrievalOptions {
  postgresUrl: string;
  engines?: readonly SearchEngine[];
  log?: (line: string) => void;
}

const matchesFilter = (page: ParsedPage | undefined, filter: EvalQuestion['filter']): boolean => {
  if (!filter || !page) return true;
  const fits = (labels: string[], wanted: string | undefined) =>
    wanted === undefined || labels.length === 0 || labels.includes(wanted);
  return fits(page.versions, filter.version) && fits(page.languages, filter.language);
};

const docentRow = (report: EvalReport): RetrievalRow => ({
  engine: `Docent (${report.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'})`,
  version: report.dialect === 'sqlite' ? 'SiteSearch over SQLite' : 'SiteSearch over PostgreSQL',
  questions: report.questions,
  hitAt1: report['hit@1'],
  hitAt5: report['hit@5'],
  hitAt10: report['hit@10'],
  mrrAt10: report['mrr@10'],
  p50Ms: report.p50_ms,
  p99Ms: report.p99_ms,
  buildSeconds: report.ingest_s,
});

export async function runRetrievalComparison(
  setDir: string,
  options: RetrievalOptions,
): Promise<RetrievalSetReport> {
  const log = options.log ?? (() => {});
  const set = await readEvalSet(setDir);
  const rows: RetrievalRow[] = [];

  for (const database of [
    { dialect: 'sqlite' as const },
    { dialect: 'postgres' as const, serverUrl: options.postgresUrl },
  ]) {
    const report = await runEval(setDir, { database });
    rows.push(docentRow(report));
    log(`  ${set.name} Docent ${database.dialect}: hit@1 ${report['hit@1']} MRR ${report['mrr@10']}`);
  }

  const loadStarted = performance.now();
  const site = await loadDocsFolder(set.docsDir);
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const chunks = chunkDocuments(site.pages);
  const pageById = new Map(site.pages.map((p) => [p.path, p]));

  for (const engine of options.engines ?? SEARCH_ENGINES) {
    const buildStarted = performance.now();
    const built = await engine.build(chunks);
    const buildSeconds = (performance.now() - buildStarted) / 1000;
    try {
      await built.search('warm up', 1); // as runEval does before its timed questions
      const results: QuestionResult[] = [];
      // Retrieval is scored on questions the docs answer, as runEval scores Docent's.
      for (const q of set.questions.filter((question) => question.relevant.length > 0)) {
        const started = performance.now();
        // A filtered question asks for more chunks, then keeps those of pages that fit the filter.
        const ids = await built.search(q.question, q.filter ? EVAL_CHUNK_LIMIT * 4 : EVAL_CHUNK_LIMIT);
        const latencyMs = performance.now() - started;
        const rankedPages = ids
          .map((id) => chunks[id]?.page)
          .filter((p): p is string => p !== undefined && matchesFilter(pageById.get(p), q.filter));
        results.push({ rankedPages, relevant: q.relevant, latencyMs });
      }
      const m = scoreResults(results);
      const latencies = results.map((r) => r.latencyMs ?? Number.NaN);
      rows.push({
        engine: engine.name,
        version: engine.version,
        questions: m.questions,
        hitAt1: m.hitAt1,
        hitAt5: m.hitAt5,
        hitAt10: m.hitAt10,
        mrrAt10: m.mrrAt10,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        buildSeconds,
      });
      log(`  ${set.name} ${engine.name}: hit@1 ${m.hitAt1.toFixed(3)} MRR ${m.mrrAt10.toFixed(3)}`);
    } finally {
      built.close?.();
    }
  }
  return {
    set: set.name,
    setDir,
    pages: site.pages.length,
    chunks: chunks.length,
    questions: set.questions.filter((question) => question.relevant.length > 0).length,
    loadSeconds,
    rows,
  };
}
