import { SourceList } from '../assistant/answer-sources.ts';
import { composeAnswer } from '../assistant/builtin-answerer.ts';
import { borrowedQuestion, questionQuery } from '../assistant/retrieval-query.ts';
import { isWeakRetrieval } from '../assistant/retrieval-strength.ts';
import { DomainError } from '../errors/domain-error.ts';
import { ingestSite } from '../ingest/ingest-site.ts';
import type { LoadProgress } from '../ingest/types.ts';
import { type EvalQuestion, isUnanswerableQuestion, readEvalSet } from '../search/eval-set.ts';
import { distinctPages, firstRelevantRank, percentile, scoreResults } from '../search/metrics.ts';
import { type SearchResult, SiteSearch } from '../search/site-search.ts';
import { openStorage, type Storage } from '../storage/database.ts';
import { createTemporaryDatabase, type TemporaryDatabase } from '../storage/temporary-database.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { tokenF1 } from './answer-metrics.ts';
import { buildPlainBm25, type PlainBm25Page } from './plain-bm25.ts';

/** Chunks fetched per question: enough distinct pages for hit@10 even when pages have many chunks. */
export const EVAL_CHUNK_LIMIT = 50;
/** Sources handed to the answerer in `--answers` mode: the endpoint's default `retrievalPageSize`. */
export const EVAL_ANSWER_SOURCES = 5;

export interface RetrievalFigures {
  questions: number;
  'hit@1': number;
  'hit@5': number;
  'hit@10': number;
  'mrr@10': number;
}

export interface AnswerFigures {
  /** Mean token F1 of the built-in answer against the reference, over answerable questions. */
  answer_f1: number;
  /** Cited pages that are relevant, over all cited pages of answerable questions. */
  citation_precision: number;
  /** Share of answerable questions answered (not declined). */
  answered: number;
  /** Share of answerable questions whose relevant page is in the top 5 that were declined anyway. */
  declined_when_found: number;
  /** Share of off-topic and not-covered questions declined; null when the set has none. */
  declined_unanswerable: number | null;
  /** Of all declines, the share that were right (the question was unanswerable); null with no declines. */
  refusal_precision: number | null;
  /** Of all unanswerable questions, the share declined (= declined_unanswerable); null when none. */
  refusal_recall: number | null;
  /**
   * Retrieval too weak (retrieval-strength.ts), the signal a real model is given and that marks a stored
   * answer unanswered: the share of answerable questions with their page in the top 5 that have it, and
   * of unanswerable questions (null when none).
   */
  weak_retrieval_when_found: number;
  weak_retrieval_unanswerable: number | null;
}

export interface EvalReport extends RetrievalFigures {
  set: string;
  dialect: 'sqlite' | 'postgres';
  /** Whether the set was used for tuning (set.json), null when it does not say. */
  tuning: boolean | null;
  pages: number;
  /** Questions the docs do not answer (`off-topic`, `not-covered`); retrieval figures leave them out. */
  unanswerable: number;
  p50_ms: number;
  p99_ms: number;
  ingest_s: number;
  /** Page-level plain BM25 on the same pages and questions (plain-bm25.ts): the floor to beat. */
  plain_bm25: RetrievalFigures;
  /** Retrieval per question type (answerable types only). */
  by_type: Record<string, RetrievalFigures>;
  /**
   * The answerable questions that carry a language filter, searched without it (as an API or MCP client
   * that sends none: the search then takes the language the question is written in), beside the same
   * questions with it. Absent when no question has one.
   */
  language_filter?: { with: RetrievalFigures; without: RetrievalFigures };
  answers?: AnswerFigures;
  /** Decline rate per question type, with `--answers`. */
  declined_by_type?: Record<string, number>;
}

/**
 * One question's outcome (`eval --questions <file>`): what the figures are made of, to read the misses
 * and the wrong citations one by one.
 */
export interface EvalQuestionRow {
  id: string;
  question: string;
  previous?: string;
  type: string;
  filter?: EvalQuestion['filter'];
  relevant: string[];
  /** The first 10 distinct pages Docent's search ranked. */
  pages: string[];
  /** 1-based rank of the first relevant page among them; null: not in the first 10 (or none is relevant). */
  rank: number | null;
  /** The same rank under plain BM25 (answerable questions only; null otherwise). */
  bm25_rank: number | null;
  /** With `--answers`: the built-in answer, whether it declined, the pages it cited and its token F1. */
  answer?: { declined: boolean; cited: string[]; f1: number | null; text: string };
}

export interface EvalOptions {
  /** Where the temporary database lives: `sqlite` (a temp file) or a PostgreSQL server URL. */
  database: { dialect: 'sqlite' } | { dialect: 'postgres'; serverUrl: string };
  answers?: boolean;
  onProgress?: LoadProgress;
  /** Called with every question's row, in the set's order, once the run has scored them all. */
  onQuestion?: (row: EvalQuestionRow) => void;
  /**
   * Called once the throwaway database exists: a caller interrupted midway (Ctrl-C in `eval`) removes
   * it, as the end of the run does; left behind, each one is a temp folder or a PostgreSQL database.
   */
  onTemporaryDatabase?: (database: TemporaryDatabase) => void;
}

const round = (n: number, digits = 3): number => Math.round(n * 10 ** digits) / 10 ** digits;
const ratio = (part: number, whole: number): number => round(whole === 0 ? 0 : part / whole);
/** `ratio`, or null when there is nothing to take a share of. */
const ratioOrNull = (part: number, whole: number): number | null => (whole === 0 ? null : ratio(part, whole));

const figures = (results: { rankedPages: string[]; relevant: string[] }[]): RetrievalFigures => {
  const m = scoreResults(results);
  return {
    questions: m.questions,
    'hit@1': round(m.hitAt1),
    'hit@5': round(m.hitAt5),
    'hit@10': round(m.hitAt10),
    'mrr@10': round(m.mrrAt10),
  };
};

const typeOf = (q: EvalQuestion): string => q.type ?? 'untyped';

/** The site's stored pages and chunks, as plain BM25 indexes them. */
const storedPages = async (storage: Storage, siteId: string): Promise<PlainBm25Page[]> => {
  const pages = await storage.db
    .selectFrom('pages')
    .select(['path', 'title', 'versions', 'languages'])
    .where('site_id', '=', siteId)
    .orderBy('path')
    .execute();
  const chunks = await storage.db
    .selectFrom('chunks')
    .select(['page_path', 'headings', 'text'])
    .where('site_id', '=', siteId)
    .orderBy('page_path')
    .orderBy('ord')
    .execute();
  const byPage = new Map<string, { headings: string[]; text: string }[]>();
  for (const chunk of chunks) {
    const list = byPage.get(chunk.page_path) ?? [];
    list.push({ headings: JSON.parse(chunk.headings) as string[], text: chunk.text });
    byPage.set(chunk.page_path, list);
  }
  return pages.map((p) => ({
    path: p.path,
    title: p.title,
    versions: JSON.parse(p.versions) as string[],
    languages: JSON.parse(p.languages) as string[],
    chunks: byPage.get(p.path) ?? [],
  }));
};

/**
 * Ingests the set's docs into a throwaway database and runs every question through the same SiteSearch
 * the endpoint uses (and, with `answers`, the same query building and built-in answerer), next to plain
 * BM25 on the same stored pages.
 */
export async function runEval(setDir: string, options: EvalOptions): Promise<EvalReport> {
  const set = await readEvalSet(setDir);
  const temporary = await createTemporaryDatabase(
    options.database.dialect,
    options.database.dialect === 'postgres' ? options.database.serverUrl : undefined,
  );
  options.onTemporaryDatabase?.(temporary);
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
    // A version the docs lack would stop the run at its question: say which question, before any runs.
    for (const q of set.questions) {
      await search.resolveVersion(site.id, q.filter?.version).catch((error: unknown) => {
        if (!(error instanceof DomainError)) throw error;
        throw new DomainError(error.kind, `question ${q.id}: ${error.message}`);
      });
    }
    const bm25 = buildPlainBm25(await storedPages(storage, site.id));

    const answerable = set.questions.filter((q) => !isUnanswerableQuestion(q));
    const bm25Pages = new Map<EvalQuestion, string[]>();
    const bm25Ranked = (q: EvalQuestion): string[] => {
      let pages = bm25Pages.get(q);
      if (pages === undefined) {
        pages = bm25.search(questionQuery(q.question, q.previous), 10, q.filter);
        bm25Pages.set(q, pages);
      }
      return pages;
    };
    const results: {
      question: EvalQuestion;
      rankedPages: string[];
      relevant: string[];
      latencyMs: number;
    }[] = [];
    for (const q of set.questions) {
      const started = performance.now();
      const hits = await searchQuestion(search, site.id, q, EVAL_CHUNK_LIMIT);
      const latencyMs = performance.now() - started;
      results.push({
        question: q,
        rankedPages: hits.map((h) => h.pagePath),
        relevant: q.relevant,
        latencyMs,
      });
    }
    const scored = results.filter((r) => r.relevant.length > 0);
    const byType: Record<string, RetrievalFigures> = {};
    for (const type of [...new Set(answerable.map(typeOf))].sort()) {
      byType[type] = figures(scored.filter((r) => typeOf(r.question) === type));
    }
    const latencies = results.map((r) => r.latencyMs);
    const report: EvalReport = {
      set: set.name,
      dialect: storage.dialect,
      tuning: set.tuning,
      pages: ingestion.counts.pages,
      ...figures(scored),
      unanswerable: set.questions.length - answerable.length,
      p50_ms: round(percentile(latencies, 50)),
      p99_ms: round(percentile(latencies, 99)),
      ingest_s: round(ingestSeconds, 2),
      plain_bm25: figures(answerable.map((q) => ({ rankedPages: bm25Ranked(q), relevant: q.relevant }))),
      by_type: byType,
    };
    const withLanguage = scored.filter((r) => r.question.filter?.language);
    if (withLanguage.length > 0) {
      const without: { rankedPages: string[]; relevant: string[] }[] = [];
      for (const r of withLanguage) {
        const hits = await searchQuestion(search, site.id, r.question, EVAL_CHUNK_LIMIT, {
          withLanguage: false,
        });
        without.push({ rankedPages: hits.map((h) => h.pagePath), relevant: r.relevant });
      }
      report.language_filter = { with: figures(withLanguage), without: figures(without) };
    }
    const answers = options.answers ? await scoreAnswers(search, site.id, results) : null;
    if (answers !== null) Object.assign(report, answers.figures);
    if (options.onQuestion)
      for (const [i, r] of results.entries()) {
        const q = r.question;
        const answered = answers?.perQuestion[i];
        options.onQuestion({
          id: q.id,
          question: q.question,
          ...(q.previous === undefined ? {} : { previous: q.previous }),
          type: typeOf(q),
          ...(q.filter === undefined ? {} : { filter: q.filter }),
          relevant: q.relevant,
          pages: distinctPages(r.rankedPages).slice(0, 10),
          rank: rankWithin10(r.rankedPages, q.relevant),
          bm25_rank: isUnanswerableQuestion(q) ? null : rankWithin10(bm25Ranked(q), q.relevant),
          ...(answered === undefined ? {} : { answer: answered }),
        });
      }
    return report;
  } finally {
    await storage.close();
    await temporary.remove();
  }
}

const rankWithin10 = (pages: readonly string[], relevant: readonly string[]): number | null => {
  const rank = firstRelevantRank(pages, relevant);
  return rank !== null && rank <= 10 ? rank : null;
};

/**
 * A question searched as the assistant endpoints search it: with the question before it when it is a
 * follow-up, and, without a language filter (none given, or `withLanguage` false), in the question's own
 * language rather than the previous question's.
 */
function searchQuestion(
  search: SiteSearch,
  siteId: string,
  q: EvalQuestion,
  limit: number,
  { withLanguage = true }: { withLanguage?: boolean } = {},
): Promise<SearchResult[]> {
  return search.search(siteId, questionQuery(q.question, q.previous), {
    limit,
    languageOf: q.question,
    version: q.filter?.version,
    language: withLanguage ? q.filter?.language : undefined,
  });
}

/** Runs the built-in answerer on every question and scores answers, citations and declines. */
async function scoreAnswers(
  search: SiteSearch,
  siteId: string,
  results: { question: EvalQuestion; rankedPages: string[] }[],
): Promise<{
  figures: Pick<EvalReport, 'answers' | 'declined_by_type'>;
  perQuestion: NonNullable<EvalQuestionRow['answer']>[];
}> {
  const perQuestion: NonNullable<EvalQuestionRow['answer']>[] = [];
  let f1Sum = 0;
  let citedPages = 0;
  let citedRelevant = 0;
  let answered = 0;
  let found = 0;
  let declinedFound = 0;
  let unanswerable = 0;
  let declinedUnanswerable = 0;
  let declines = 0;
  let weakFound = 0;
  let weakUnanswerable = 0;
  const perType = new Map<string, { questions: number; declined: number }>();
  for (const { question: q, rankedPages } of results) {
    const top = await searchQuestion(search, siteId, q, EVAL_ANSWER_SOURCES);
    const sources = SourceList.of(top).all;
    const answer = composeAnswer(q.question, sources, [], borrowedQuestion(q.question, q.previous));
    const declined = !answer.covered;
    const weak = isWeakRetrieval(sources);
    const type = perType.get(typeOf(q)) ?? { questions: 0, declined: 0 };
    type.questions++;
    if (declined) type.declined++;
    perType.set(typeOf(q), type);
    if (declined) declines++;
    const cited = distinctPages(
      answer.citedIds.map((id) => top[Number(id) - 1]?.pagePath).filter((p): p is string => p !== undefined),
    );
    if (q.relevant.length === 0) {
      perQuestion.push({ declined, cited, f1: null, text: answer.text });
      unanswerable++;
      if (declined) declinedUnanswerable++;
      if (weak) weakUnanswerable++;
      continue;
    }
    const f1 = tokenF1(answer.text.replace(/\[\d+\]/g, ''), q.answer);
    perQuestion.push({ declined, cited, f1: round(f1), text: answer.text });
    f1Sum += f1;
    if (!declined) answered++;
    const rank = firstRelevantRank(rankedPages, q.relevant);
    if (rank !== null && rank <= 5) {
      found++;
      if (declined) declinedFound++;
      if (weak) weakFound++;
    }
    const relevant = new Set(q.relevant);
    citedPages += cited.length;
    citedRelevant += cited.filter((p) => relevant.has(p)).length;
  }
  const answerable = results.length - unanswerable;
  return {
    perQuestion,
    figures: {
      answers: {
        answer_f1: ratio(f1Sum, answerable),
        citation_precision: ratio(citedRelevant, citedPages),
        answered: ratio(answered, answerable),
        declined_when_found: ratio(declinedFound, found),
        declined_unanswerable: ratioOrNull(declinedUnanswerable, unanswerable),
        refusal_precision: ratioOrNull(declinedUnanswerable, declines),
        refusal_recall: ratioOrNull(declinedUnanswerable, unanswerable),
        weak_retrieval_when_found: ratio(weakFound, found),
        weak_retrieval_unanswerable: ratioOrNull(weakUnanswerable, unanswerable),
      },
      declined_by_type: Object.fromEntries(
        [...perType.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([t, v]) => [t, ratio(v.declined, v.questions)]),
      ),
    },
  };
}
