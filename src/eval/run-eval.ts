import { SourceList } from '../assistant/answer-sources.ts';
import { composeAnswer } from '../assistant/builtin-answerer.ts';
import { retrievalQuery } from '../assistant/retrieval-query.ts';
import { ingestSite } from '../ingest/ingest-site.ts';
import type { LoadProgress } from '../ingest/types.ts';
import { readEvalSet } from '../search/eval-set.ts';
import { distinctPages, percentile, scoreResults } from '../search/metrics.ts';
import { SiteSearch } from '../search/site-search.ts';
import { openStorage } from '../storage/database.ts';
import { createTemporaryDatabase } from '../storage/temporary-database.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { tokenF1 } from './answer-metrics.ts';

/** Chunks fetched per question: enough distinct pages for hit@10 even when pages have many chunks. */
export const EVAL_CHUNK_LIMIT = 50;
/** Sources handed to the answerer in `--answers` mode: the endpoint's default `retrievalPageSize`. */
export const EVAL_ANSWER_SOURCES = 5;

export interface EvalReport {
  set: string;
  dialect: 'sqlite' | 'postgres';
  pages: number;
  questions: number;
  'hit@1': number;
  'hit@5': number;
  'hit@10': number;
  'mrr@10': number;
  p50_ms: number;
  p99_ms: number;
  ingest_s: number;
  answer_f1?: number;
  citation_precision?: number;
  /** Share of questions the answerer answered (did not say the docs do not cover it). */
  answered?: number;
}

export interface EvalOptions {
  /** Where the temporary database lives: `sqlite` (a temp file) or a PostgreSQL server URL. */
  database: { dialect: 'sqlite' } | { dialect: 'postgres'; serverUrl: string };
  answers?: boolean;
  onProgress?: LoadProgress;
}

const round = (n: number, digits = 3): number => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Ingests the set's `docs/` into a throwaway database and runs every question through the same
 * SiteSearch the endpoint uses (and, with `answers`, the same query building and built-in answerer).
 */
export async function runEval(setDir: string, options: EvalOptions): Promise<EvalReport> {
  const set = await readEvalSet(setDir);
  const temporary = await createTemporaryDatabase(
    options.database.dialect,
    options.database.dialect === 'postgres' ? options.database.serverUrl : undefined,
  );
  const storage = await openStorage(temporary.url);
  try {
    const org = await createOrganization(storage, { name: 'eval' });
    const site = await createSite(storage, { organizationId: org.id, domain: 'eval' });
    const ingestStarted = performance.now();
    const ingestion = await ingestSite(
      storage,
      site.id,
      set.docsDir,
      options.onProgress ? { onProgress: options.onProgress } : {},
    );
    const ingestSeconds = (performance.now() - ingestStarted) / 1000;
    const search = new SiteSearch(storage);
    await search.search(site.id, 'warm up', { limit: 1 });

    const results = [];
    let f1Sum = 0;
    let citedPages = 0;
    let citedRelevant = 0;
    let answered = 0;
    for (const q of set.questions) {
      const started = performance.now();
      const hits = await search.search(site.id, q.question, {
        limit: EVAL_CHUNK_LIMIT,
        version: q.filter?.version,
        language: q.filter?.language,
      });
      const latencyMs = performance.now() - started;
      results.push({ rankedPages: hits.map((h) => h.pagePath), relevant: q.relevant, latencyMs });

      if (options.answers) {
        const messages = [{ id: q.id, role: 'user' as const, content: q.question, parts: [] }];
        const query = retrievalQuery(messages);
        const top = await search.search(site.id, query, {
          limit: EVAL_ANSWER_SOURCES,
          version: q.filter?.version,
          language: q.filter?.language,
        });
        const answer = composeAnswer(q.question, SourceList.of(top).all);
        f1Sum += tokenF1(answer.text.replace(/\[\d+\]/g, ''), q.answer);
        if (answer.covered) answered++;
        const pages = distinctPages(
          answer.citedIds
            .map((id) => top[Number(id) - 1]?.pagePath)
            .filter((p): p is string => p !== undefined),
        );
        const relevant = new Set(q.relevant);
        citedPages += pages.length;
        citedRelevant += pages.filter((p) => relevant.has(p)).length;
      }
    }
    const metrics = scoreResults(results);
    const latencies = results.map((r) => r.latencyMs);
    const report: EvalReport = {
      set: set.name,
      dialect: storage.dialect,
      pages: ingestion.counts.pages,
      questions: metrics.questions,
      'hit@1': round(metrics.hitAt1),
      'hit@5': round(metrics.hitAt5),
      'hit@10': round(metrics.hitAt10),
      'mrr@10': round(metrics.mrrAt10),
      p50_ms: round(percentile(latencies, 50)),
      p99_ms: round(percentile(latencies, 99)),
      ingest_s: round(ingestSeconds, 2),
    };
    if (options.answers) {
      const n = Math.max(set.questions.length, 1);
      report.answer_f1 = round(f1Sum / n);
      report.citation_precision = round(citedPages === 0 ? 0 : citedRelevant / citedPages);
      report.answered = round(answered / n);
    }
    return report;
  } finally {
    await storage.close();
    await temporary.remove();
  }
}
