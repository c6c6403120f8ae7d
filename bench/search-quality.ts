/**
 * Retrieval quality and latency of the in-process search engine on eval sets.
 *
 *   npx tsx bench/search-quality.ts [set-dir…] [--loader module.ts] [--params '{"k1":1.0}'] [--latency-corpus dir]
 *
 * Each set dir holds `docs/` and `questions.jsonl` (see ../shared/eval/README.md). Pages come from
 * `src/ingest/load-docs-folder.ts`, or from `--loader` (a module exporting `loadDocsFolder`) while that
 * does not exist. Prints one metrics JSON object per set: all questions, and two fixed halves (split by a
 * hash of the question id) so a change tuned on one half can be confirmed on the other.
 * `--latency-corpus` indexes another docs folder (e.g. ../shared/corpora/crewai-docs) and times every
 * question of the given sets against it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LoadedSite } from '../src/ingest/types.ts';
import { type EvalQuestion, readEvalSet } from '../src/search/eval-set.ts';
import { type QuestionResult, scoreResults } from '../src/search/metrics.ts';
import {
  buildSearchIndex,
  DEFAULT_RANKING,
  type RankingParams,
  searchIndex,
} from '../src/search/search-index.ts';
import { indexableChunksFromPages } from '../src/search/site-chunks.ts';

/** Chunks requested per question: enough to reach 10 distinct pages in practice. */
const CHUNK_LIMIT = 100;

type Loader = (dir: string) => Promise<LoadedSite>;

const resolveLoader = async (explicit: string | undefined): Promise<{ name: string; load: Loader }> => {
  const real = path.resolve(import.meta.dirname, '../src/ingest/load-docs-folder.ts');
  const file = explicit ? path.resolve(explicit) : real;
  if (!existsSync(file))
    throw new Error(`no loader at ${file}; pass --loader <module exporting loadDocsFolder>`);
  const mod = (await import(pathToFileURL(file).href)) as { loadDocsFolder?: Loader };
  if (typeof mod.loadDocsFolder !== 'function') throw new Error(`${file} does not export loadDocsFolder`);
  return { name: path.relative(process.cwd(), file), load: mod.loadDocsFolder };
};

/** FNV-1a of the id: a fixed, label-blind split into halves A and B. */
const halfOf = (id: string): 'A' | 'B' => {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % 2 === 0 ? 'A' : 'B';
};

const indexSite = (site: LoadedSite, params: RankingParams) => {
  const t0 = performance.now();
  const chunks = indexableChunksFromPages(site.pages);
  const t1 = performance.now();
  const index = buildSearchIndex(chunks, params);
  const t2 = performance.now();
  return { index, chunks: chunks.length, analyzeMs: t1 - t0, buildMs: t2 - t1 };
};

const round = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'number' ? Math.round(v * 1000) / 1000 : v)));

const main = async (): Promise<void> => {
  const args = process.argv.slice(2);
  const option = (name: string): string | undefined => {
    const i = args.indexOf(name);
    if (i < 0) return undefined;
    const value = args[i + 1];
    args.splice(i, 2);
    return value;
  };
  const loaderPath = option('--loader');
  const paramsJson = option('--params');
  const latencyCorpus = option('--latency-corpus');
  const params: RankingParams = { ...DEFAULT_RANKING, ...(paramsJson ? JSON.parse(paramsJson) : {}) };
  const setDirs =
    args.length > 0
      ? args
      : ['claude-docs', 'tv-manual'].map((s) => path.resolve(import.meta.dirname, '../../shared/eval', s));
  const loader = await resolveLoader(loaderPath);
  const allQuestions: EvalQuestion[] = [];

  for (const dir of setDirs) {
    const set = await readEvalSet(dir);
    allQuestions.push(...set.questions);
    const site = await loader.load(set.docsDir);
    const { index, chunks, analyzeMs, buildMs } = indexSite(site, params);
    const run = (questions: EvalQuestion[]): QuestionResult[] =>
      questions.map((q) => {
        const t0 = performance.now();
        const hits = searchIndex(index, q.question, {
          limit: CHUNK_LIMIT,
          version: q.filter?.version,
          language: q.filter?.language,
        });
        return {
          rankedPages: hits.map((h) => h.pagePath),
          relevant: q.relevant,
          latencyMs: performance.now() - t0,
        };
      });
    run(set.questions); // warm-up: JIT and stemmer caches, so latency reflects a running server
    const results = run(set.questions);
    const byHalf = (half: 'A' | 'B') => results.filter((_, i) => halfOf(set.questions[i]?.id ?? '') === half);
    console.log(
      JSON.stringify(
        round({
          set: set.name,
          loader: loader.name,
          pages: site.pages.length,
          chunks,
          analyzeMs,
          buildMs,
          all: scoreResults(results),
          halfA: scoreResults(byHalf('A')),
          halfB: scoreResults(byHalf('B')),
        }),
      ),
    );
  }

  if (latencyCorpus) {
    const site = await loader.load(
      path.join(latencyCorpus, existsSync(path.join(latencyCorpus, 'docs')) ? 'docs' : ''),
    );
    const { index, chunks, analyzeMs, buildMs } = indexSite(site, params);
    const language = site.navigation.languages[0];
    const version = site.navigation.versions[0];
    const run = (): QuestionResult[] =>
      allQuestions.map((q) => {
        const t0 = performance.now();
        const hits = searchIndex(index, q.question, { limit: 10, language, version });
        return { rankedPages: hits.map((h) => h.pagePath), relevant: [], latencyMs: performance.now() - t0 };
      });
    run();
    const unfiltered = allQuestions.map((q) => {
      const t0 = performance.now();
      searchIndex(index, q.question, { limit: 10 });
      return { rankedPages: [], relevant: [], latencyMs: performance.now() - t0 };
    });
    console.log(
      JSON.stringify(
        round({
          latencyCorpus,
          pages: site.pages.length,
          chunks,
          analyzeMs,
          buildMs,
          queries: allQuestions.length,
          filtered: { language, version, latencyMs: scoreResults(run()).latencyMs },
          unfiltered: scoreResults(unfiltered).latencyMs,
        }),
      ),
    );
  }
};

await main();
