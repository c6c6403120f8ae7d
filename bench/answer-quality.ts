/**
 * Answer quality of the built-in answerer on the eval sets in `../shared/eval`:
 * mean token F1 against each question's reference `answer` (lowercase alphanumeric tokens, multiset
 * overlap) and citation precision (share of cited pages that are in `relevant`).
 *
 *   npx tsx bench/answer-quality.ts [set-dir…]      (SHOW_OFFTOPIC=1 prints the off-topic answers)
 *
 * `off_topic_answered`: each set's questions are also asked of the next set's docs, which do not cover
 * them; the count answered (instead of the no-coverage message) is how often the answerer guesses.
 *
 * Retrieval here is a stand-in (a quick loader and chunk-level BM25 in this file), so the figures measure
 * the answerer on imperfect retrieval, not the real search; `docent eval --answers` is the end-to-end figure.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { terms, words } from '../src/assistant/answer-text.ts';
import { composeAnswer, type RetrievedSource } from '../src/assistant/builtin-answerer.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const evalRoot = path.resolve(here, '../../shared/eval');
const RETRIEVAL_PAGE_SIZE = 5;

interface Chunk {
  page: string;
  title: string;
  headings: string[];
  text: string;
  terms: string[];
}

interface Question {
  id: string;
  question: string;
  answer: string;
  relevant: string[];
}

function listPages(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(root, dir)).sort()) {
    const rel = path.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) out.push(...listPages(root, rel));
    else if (/\.mdx?$/.test(name)) out.push(rel);
  }
  return out;
}

/** Quick stand-in for the real loader: front matter title, MDX tags dropped, chunks at `##`/`###`. */
function loadChunks(docsDir: string): Chunk[] {
  const chunks: Chunk[] = [];
  for (const file of listPages(docsDir)) {
    const page = file
      .replace(/\.mdx?$/, '')
      .split(path.sep)
      .join('/');
    let source = readFileSync(path.join(docsDir, file), 'utf8');
    let title = page;
    const front = /^---\n([\s\S]*?)\n---\n/.exec(source);
    if (front) {
      title = /^title:\s*"?(.*?)"?\s*$/m.exec(front[1] ?? '')?.[1] ?? page;
      source = source.slice(front[0].length);
    }
    source = source.replace(/^(import|export) .*$/gm, '').replace(/<\/?[A-Za-z][^>]*>/g, '');
    let headings: string[] = [];
    let body: string[] = [];
    let inFence = false;
    const flush = (): void => {
      const text = body.join('\n').trim();
      if (text.length > 0) {
        chunks.push({ page, title, headings, text, terms: terms([title, ...headings, text].join(' ')) });
      }
      body = [];
    };
    for (const line of source.split('\n')) {
      if (/^\s*```/.test(line)) inFence = !inFence;
      const heading = inFence ? null : /^(#{1,3})\s+(.*)$/.exec(line);
      if (heading) {
        flush();
        const level = heading[1]?.length ?? 1;
        const textOf = heading[2] ?? '';
        if (level === 1) headings = [];
        else headings = level === 2 ? [textOf] : [...headings.slice(0, 1), textOf];
        continue;
      }
      body.push(line);
    }
    flush();
  }
  return chunks;
}

function bm25(chunks: Chunk[]): (query: string, k: number) => Chunk[] {
  const df = new Map<string, number>();
  let totalLength = 0;
  const tfs = chunks.map((c) => {
    const tf = new Map<string, number>();
    for (const t of c.terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    totalLength += c.terms.length;
    return tf;
  });
  const avg = totalLength / Math.max(chunks.length, 1);
  const n = chunks.length;
  return (query, k) => {
    const q = [...new Set(terms(query))];
    const scored = chunks.map((chunk, i) => {
      let score = 0;
      const tf = tfs[i] ?? new Map<string, number>();
      for (const t of q) {
        const f = tf.get(t) ?? 0;
        if (f === 0) continue;
        const d = df.get(t) ?? 0;
        const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
        score += (idf * f * 1.9) / (f + 0.9 * (1 - 0.4 + (0.4 * chunk.terms.length) / avg));
      }
      return { chunk, score, i };
    });
    scored.sort((a, b) => b.score - a.score || a.i - b.i);
    return scored.slice(0, k).map((s) => s.chunk);
  };
}

function tokenF1(candidate: string, reference: string): number {
  const a = words(candidate);
  const b = words(reference);
  if (a.length === 0 || b.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of b) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of a) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      common++;
      counts.set(t, c - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / a.length;
  const recall = common / b.length;
  return (2 * precision * recall) / (precision + recall);
}

function readQuestions(setDir: string): Question[] {
  return readFileSync(path.join(setDir, 'questions.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as Question);
}

function toSources(hits: Chunk[]): RetrievedSource[] {
  return hits.map((c, i) => ({
    id: String(i + 1),
    pageTitle: c.title,
    headings: c.headings,
    url: `/${c.page}`,
    text: c.text,
    score: 0,
  }));
}

/**
 * `offTopicDir`: another set whose questions this set's docs do not cover; the share of them answered
 * (instead of the no-coverage message) measures how often the answerer guesses.
 */
function runSet(setDir: string, offTopicDir: string | undefined): void {
  const chunks = loadChunks(path.join(setDir, 'docs'));
  const search = bm25(chunks);
  const questions = readQuestions(setDir);

  let f1Sum = 0;
  let precisionSum = 0;
  let withCitations = 0;
  let citedTotal = 0;
  let citedRelevant = 0;
  let uncovered = 0;
  let retrievalHit1 = 0;
  const started = performance.now();
  for (const q of questions) {
    const hits = search(q.question, RETRIEVAL_PAGE_SIZE);
    const sources = toSources(hits);
    if (hits[0] !== undefined && q.relevant.includes(hits[0].page)) retrievalHit1++;
    const answer = composeAnswer(q.question, sources);
    f1Sum += tokenF1(answer.text, q.answer);
    if (!answer.covered) uncovered++;
    const pages = new Set(
      answer.citedIds
        .map((id) => sources.find((s) => s.id === id)?.url.slice(1))
        .filter((p) => p !== undefined),
    );
    if (pages.size > 0) {
      const good = [...pages].filter((p) => q.relevant.includes(p)).length;
      precisionSum += good / pages.size;
      withCitations++;
      citedTotal += pages.size;
      citedRelevant += good;
    }
  }
  const ms = performance.now() - started;
  let offTopicAnswered = 0;
  const offTopic = offTopicDir === undefined ? [] : readQuestions(offTopicDir).slice(0, 200);
  for (const q of offTopic) {
    const answer = composeAnswer(q.question, toSources(search(q.question, RETRIEVAL_PAGE_SIZE)));
    if (answer.covered) {
      offTopicAnswered++;
      if (process.env.SHOW_OFFTOPIC)
        console.log(q.question, '=>', answer.text.slice(0, 160).replace(/\n/g, ' '));
    }
  }
  const name = path.basename(setDir);
  const fmt = (x: number): string => x.toFixed(3);
  console.log(
    JSON.stringify({
      set: name,
      questions: questions.length,
      answer_f1: fmt(f1Sum / questions.length),
      citation_precision: fmt(precisionSum / Math.max(withCitations, 1)),
      citation_precision_micro: fmt(citedRelevant / Math.max(citedTotal, 1)),
      no_coverage_answers: uncovered,
      standin_retrieval_hit1: fmt(retrievalHit1 / questions.length),
      ms_per_answer: fmt(ms / questions.length),
      off_topic_answered: `${offTopicAnswered}/${offTopic.length}`,
    }),
  );
}

const given = process.argv.slice(2).map((d) => path.resolve(d));
const sets = given.length > 0 ? given : ['claude-docs', 'tv-manual'].map((s) => path.join(evalRoot, s));
// Each set's questions are off-topic for the next set's docs.
for (const [i, dir] of sets.entries()) runSet(dir, sets.length > 1 ? sets[(i + 1) % sets.length] : undefined);
