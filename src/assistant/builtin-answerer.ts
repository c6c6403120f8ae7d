/**
 * The built-in answerer: the model used when no LLM provider is configured. It is an AI SDK
 * `LanguageModelV3`, so the route streams it exactly like a real model (a configured provider swaps the model, nothing
 * else), but it writes no text of its own: it quotes the sentences of the retrieved chunks that best match
 * the question, cites them with the chunks' numbers, and says so plainly when nothing matches well enough.
 *
 * Pure and deterministic: the same question and sources give the same bytes (no clock, no randomness,
 * every sort has a total order).
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FinishReason,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { longFormTerms } from '../search/abbreviations.ts';
import { withinOneEdit } from '../search/one-edit.ts';
import { withoutVersionMentions } from '../search/version-mentions.ts';
import {
  type AnswerUnit,
  GENERIC_TERMS,
  isTableRow,
  namedTerms,
  questionTerms,
  termSetCached,
  terms,
} from './answer-text.ts';
import { PHRASES, type Phrases, replyLanguage } from './answerer-phrases.ts';
import { analyzeChunk, type ChunkAnalysis, hashString } from './chunk-analysis.ts';
import { citedSourceIds } from './citations.ts';
import { borrowedQuestion, previousQuestion } from './retrieval-query.ts';
import { isWeakRetrieval, retrievalStrength } from './retrieval-strength.ts';
import { smallTalk } from './small-talk.ts';

/** One retrieved chunk, numbered for citation. */
export interface RetrievedSource {
  /** Citation number as a string: `'1'` is cited as `[1]`. */
  id: string;
  pageTitle: string;
  /** Headings under the page title leading to the chunk, outermost first. */
  headings: string[];
  url: string;
  text: string;
  /** Retrieval score; only the order of sources is used (scores of different engines do not compare). */
  score: number;
  /**
   * Share (0–1) of the question's IDF-weighted words the chunk has, weighed over the whole site (the
   * search's `coverage`: a word the site never uses weighs the most, a one-letter typo of a site word
   * counts as that word). Absent when the sources did not come from Docent's search.
   */
  coverage?: number;
  /**
   * The version the search that found the chunk ran in (SearchResult.searchedVersion): a question naming
   * it is answered without its name, as it was searched.
   */
  searchedVersion?: string | null;
}

/** Page context sent by the client: a code snippet or text the reader selected. */
export interface AnswerContextItem {
  type: 'code' | 'textSelection';
  value: string;
}

export interface BuiltinAnswererOptions {
  /** Retrieved chunks, best first. */
  sources: readonly RetrievedSource[];
  /** Context items: they sharpen which sentences are picked (weighted below the question itself). */
  context?: readonly AnswerContextItem[];
  /** Milliseconds between streamed deltas; 0 (default) streams as fast as the reader pulls. */
  deltaDelayMs?: number;
}

/** The answer's first line when no source is relevant enough, in English (answerer-phrases.ts has the others). */
export const NO_COVERAGE_MESSAGE = PHRASES.english.noCoverage;

/*
 * Tuning, the same for every site (chosen on the two eval sets as a whole, never per question).
 */
/**
 * Share of the question's weight (IDF-weighted terms) that a small window of the best page (a sentence, its
 * neighbours, the chunk's headings) must contain for the question to count as covered.
 */
const MIN_PAGE_COVERAGE = 0.4;
/**
 * With Docent's search (sources carry `coverage`): the answer needs `strength + WINDOW_EVIDENCE × window
 * share − a named-term penalty` of at least `MIN_EVIDENCE`, where strength is the retrieval strength
 * (retrieval-strength.ts; below its bar the answerer declines outright) and the window share is the best
 * share of the question's words (everyday words at `GENERIC_WEIGHT`) in a window of the lead's page. Tuned
 * on claude-docs, tv-manual, crewai-docs and mintlify-docs (eval/README.md).
 */
const MIN_EVIDENCE = 1.36;
const WINDOW_EVIDENCE = 2;
/** Taken off when a name or identifier the question spells (`Terraform`, `GraphQL`) is in no source. */
const NAMED_MISSING_PENALTY = 0.3;
/** Share of the question's weight that the best single sentence must contain. */
const MIN_UNIT_COVERAGE = 0.15;
/** Sentences quoted besides the lead. */
const MAX_SUPPORTING = 3;
/** A supporting sentence must have at least this share of the question's weight itself. */
const MIN_SUPPORT_COVERAGE = 0.15;
/** A supporting sentence must score at least this share of the lead's score. */
const SUPPORT_RATIO = 0.3;
/** Items of one list quoted when the answer is a list of steps. */
const MAX_LIST_ITEMS = 8;
/** Weight of the whole page's coverage in a sentence's score: sentences of on-topic pages win ties. */
const PAGE_WEIGHT = 0.35;
/** Weight of the retrieval order: the search engine saw the whole site, the answerer only these chunks. */
const RANK_WEIGHT = 0.6;
/** Weight of the chunk's search `coverage` (its share of the question, words weighed over the whole site). */
const SEARCH_COVERAGE_WEIGHT = 0.6;
/** Units on each side of a sentence in the window that must cover the question. */
const WINDOW = 1;
/** Weight of context-item terms relative to question terms. */
const CONTEXT_WEIGHT = 0.3;
/** Weight of the words a follow-up borrows from the previous question, relative to its own. */
const FOLLOW_UP_WEIGHT = 0.3;
/** Weight of everyday words (see `GENERIC_TERMS`) relative to topical ones. */
const GENERIC_WEIGHT = 0.4;
/**
 * Score added to a sentence that defines what a "what is X?" question asks about ("MCP, the Model Context
 * Protocol, is how…"): every sentence that merely uses the name covers such a question as fully, and
 * without this the first retrieved one wins (a config snippet's "MCP clients accept this shape:").
 */
const DEFINITION_BONUS = 1;
/**
 * A chunk's first sentence (not code, not a table row), when the chunk's headings (and page title) have at
 * least this share of the question's weight and the sentence has a word of the question itself, covers
 * the question as much as the headings do: a section's first sentence says what it is about in words of
 * its own ("By default an organization can ask 10,000 questions per hour" under "Rate limits", for "whats
 * the default rate limit").
 */
const OPENING_MIN_HEADING = 0.75;
/** Words at most in the subject of a definition question: longer ones ask about a situation. */
const MAX_DEFINED_WORDS = 4;

/** Words per streamed text delta: the whole answer is known at once, so deltas only pace the reader; each
 * delta costs a pass through the SDK stream pipeline and a socket write, hence not one word each. */
const WORDS_PER_DELTA = 8;

/** What the built-in answerer decided, before it is streamed. */
export interface BuiltinAnswer {
  text: string;
  /** Source ids cited, in order of first citation. */
  citedIds: string[];
  /** False when the answer is the no-coverage message or a small-talk reply (small-talk.ts). */
  covered: boolean;
}

const STOP: LanguageModelV3FinishReason = { unified: 'stop', raw: 'stop' };
const TEXT_ID = 'answer';

export class BuiltinAnswerer implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'docent';
  readonly modelId = 'builtin';
  readonly supportedUrls = {};

  private readonly sources: readonly RetrievedSource[];
  private readonly context: readonly AnswerContextItem[];
  private readonly deltaDelayMs: number;

  constructor(options: BuiltinAnswererOptions) {
    this.sources = options.sources;
    this.context = options.context ?? [];
    this.deltaDelayMs = options.deltaDelayMs ?? 0;
  }

  /**
   * The answer to `question` over this answerer's sources (what `doStream` streams); `previous` is the
   * question asked before it in the conversation, borrowed from when this one is a follow-up.
   */
  answer(question: string, previous?: string): BuiltinAnswer {
    return composeAnswer(question, this.sources, this.context, borrowedQuestion(question, previous));
  }

  async doGenerate(
    options: LanguageModelV3CallOptions,
  ): Promise<Awaited<ReturnType<LanguageModelV3['doGenerate']>>> {
    options.abortSignal?.throwIfAborted();
    const [question, previous] = lastUserTexts(options.prompt);
    const { text } = this.answer(question, previous);
    return {
      content: [{ type: 'text', text }],
      finishReason: STOP,
      usage: this.usage(question, text),
      warnings: [],
    };
  }

  async doStream(
    options: LanguageModelV3CallOptions,
  ): Promise<Awaited<ReturnType<LanguageModelV3['doStream']>>> {
    options.abortSignal?.throwIfAborted();
    const [question, previous] = lastUserTexts(options.prompt);
    const { text } = this.answer(question, previous);
    const deltas = splitDeltas(text);
    const usage = this.usage(question, text);
    const signal = options.abortSignal;
    const delay = this.deltaDelayMs;
    let next = 0;
    let onAbort: (() => void) | undefined;

    // Pull-based: one delta per read, so a slow reader applies backpressure and an abort between reads
    // stops the answer where it is.
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'text-start', id: TEXT_ID });
        if (signal !== undefined) {
          onAbort = () => {
            try {
              controller.error(signal.reason);
            } catch {
              // Already closed: nothing left to stop.
            }
          };
          signal.addEventListener('abort', onAbort, { once: true });
        }
      },
      async pull(controller) {
        if (delay > 0 && next > 0) await sleep(delay);
        if (signal?.aborted) return;
        const delta = deltas[next++];
        if (delta !== undefined) {
          controller.enqueue({ type: 'text-delta', id: TEXT_ID, delta });
          return;
        }
        controller.enqueue({ type: 'text-end', id: TEXT_ID });
        controller.enqueue({ type: 'finish', finishReason: STOP, usage });
        if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
        controller.close();
      },
      cancel() {
        if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
      },
    });
    return { stream };
  }

  /**
   * Token counts are approximate: ~4 characters per token, the usual rule of thumb for English with
   * GPT/Claude-style BPE tokenizers. Prompt = question + context + every source's text; completion = answer.
   */
  private usage(question: string, answer: string): LanguageModelV3Usage {
    let promptChars = question.length;
    for (const item of this.context) promptChars += item.value.length;
    for (const source of this.sources) promptChars += source.text.length;
    const input = approxTokens(promptChars);
    const output = approxTokens(answer.length);
    return {
      inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: output, text: output, reasoning: undefined },
    };
  }
}

/** Source ids the answer cites (re-exported so callers of the answerer need one import). */
export { citedSourceIds };

export function approxTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

/** Text of the last user message of a prompt (all its text parts). */
export function lastUserText(prompt: LanguageModelV3Prompt): string {
  return lastUserTexts(prompt)[0];
}

/**
 * Texts of the last user message of a prompt and of the previous question it may borrow from, if any
 * (`previousQuestion`, as the search query borrows it).
 */
function lastUserTexts(prompt: LanguageModelV3Prompt): [string, string | undefined] {
  const texts: string[] = [];
  for (const message of prompt) {
    if (message.role !== 'user') continue;
    texts.push(
      message.content
        .map((part) => (part.type === 'text' ? part.text : ''))
        .join('\n')
        .trim(),
    );
  }
  return [texts.at(-1) ?? '', previousQuestion(texts.slice(0, -1))];
}

/** Splits the answer into deltas of a few words; concatenated they are exactly `text`. */
export function splitDeltas(text: string): string[] {
  const tokens = text.match(/\s*\S+\s*/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += WORDS_PER_DELTA)
    out.push(tokens.slice(i, i + WORDS_PER_DELTA).join(''));
  if (out.length === 0 && text.length > 0) out.push(text);
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface ScoredUnit {
  unit: AnswerUnit;
  source: RetrievedSource;
  /** Position of the source in the retrieval order. */
  rank: number;
  /** Share of the question's weight found in the unit (0–1). */
  coverage: number;
  score: number;
}

/**
 * Typed arrays every answer reuses, grown when an answer needs more: allocating them per answer (most
 * are too large for V8's on-heap typed arrays) cost more than filling them. `composeAnswer` runs to its
 * end synchronously and never calls itself, so one set serves every answer; each read is of a part the
 * answer wrote (or cleared) first.
 */
class Scratch {
  private readonly int32s = [
    new Int32Array(256),
    new Int32Array(256),
    new Int32Array(256),
    new Int32Array(64),
    new Int32Array(256),
  ];
  private readonly uint32s = [new Uint32Array(256)];
  private readonly float64s = [new Float64Array(64), new Float64Array(64)];

  int32(which: number, length: number): Int32Array {
    let array = this.int32s[which] as Int32Array;
    if (array.length < length) this.int32s[which] = array = new Int32Array(2 * length);
    return array;
  }

  uint32(which: number, length: number): Uint32Array {
    let array = this.uint32s[which] as Uint32Array;
    if (array.length < length) this.uint32s[which] = array = new Uint32Array(2 * length);
    return array;
  }

  float64(which: number, length: number): Float64Array {
    let array = this.float64s[which] as Float64Array;
    if (array.length < length) this.float64s[which] = array = new Float64Array(2 * length);
    return array;
  }
}
const scratch = new Scratch();

/**
 * Builds the answer text; exported for tests and the benchmark. `borrowed`: the previous question, when
 * `question` is a follow-up that leans on it (`borrowedQuestion`): its words count, below the question's.
 */
export function composeAnswer(
  question: string,
  sources: readonly RetrievedSource[],
  context: readonly AnswerContextItem[] = [],
  borrowed?: string,
): BuiltinAnswer {
  // "hi there" or "thanks!" is not a question: quoting whatever its words match would be nonsense.
  const talk = smallTalk(question);
  const phrases = PHRASES[replyLanguage(question)];
  if (talk !== null) return { text: phrases.smallTalk[talk], citedIds: [], covered: false };
  // "… in 2025-11-25?" searched in that version: its name is not a word the pages must say.
  const version = searchedVersionOf(sources);
  const unnamed = (text: string): string =>
    version === null ? text : withoutVersionMentions([version], text, [version]);
  const own = unnamed(question);
  const asked = questionTerms(own);
  const borrowedList = borrowed === undefined ? [] : questionTerms(unnamed(borrowed));
  const weights = queryWeights(asked, context, borrowedList);
  // A follow-up with topical words of its own ("What about Docker?") picks its sentences by them; the
  // words it borrows only help decide whether the docs cover it. One without ("what happens when I go
  // over it?") is found by the borrowed words too.
  const ownTopical = new Set(borrowed === undefined ? [] : asked.filter((term) => !GENERIC_TERMS.has(term)));
  const borrowedOnly =
    ownTopical.size === 0 ? null : new Set(borrowedList.filter((term) => !asked.includes(term)));
  const scoringWeight = (term: string): number => (borrowedOnly?.has(term) ? 0 : (weights.get(term) ?? 0));
  const chunks = sources.map((source) => analyzeChunk(source.text));
  // A sentence repeated in several chunks (tab contents scraped twice) is quoted and counted once. The
  // units each source keeps are contiguous in `allUnits`, from `unitStart[rank]` on; `slot` maps a
  // chunk's unit index to its index in `allUnits`, or -1 for a repeat.
  const allUnits: AnswerUnit[] = [];
  const unitsBySource: AnswerUnit[][] = [];
  const unitStart: number[] = [];
  const slotStart: number[] = [];
  let slotCount = 0;
  for (let rank = 0; rank < chunks.length; rank++) {
    slotStart.push(slotCount);
    slotCount += (chunks[rank] as ChunkAnalysis).units.length;
  }
  const slot = scratch.int32(0, slotCount);
  // The units kept so far, by key hash: open addressing, at most half full, slot → index + 1 (0: empty).
  let tableSize = 8;
  while (tableSize < 2 * slotCount) tableSize *= 2;
  const tableMask = tableSize - 1;
  const table = scratch.int32(1, tableSize).fill(0, 0, tableSize);
  const keptHashes = scratch.int32(2, slotCount);
  // Each kept unit's term count as scoring needs it (`ChunkAnalysis.termCounts`), in `allUnits` order.
  const keptTermCounts = scratch.int32(4, slotCount);
  for (let rank = 0; rank < chunks.length; rank++) {
    const chunk = chunks[rank] as ChunkAnalysis;
    const units: AnswerUnit[] = [];
    unitStart.push(allUnits.length);
    const base = slotStart[rank] as number;
    for (let i = 0; i < chunk.units.length; i++) {
      const unit = chunk.units[i] as AnswerUnit;
      const hash = chunk.keyHashes[i] as number;
      let s = hash & tableMask;
      let repeat = false;
      for (let k = (table[s] as number) - 1; k >= 0; k = (table[s] as number) - 1) {
        if (keptHashes[k] === hash && (allUnits[k] as AnswerUnit).key === unit.key) {
          repeat = true;
          break;
        }
        s = (s + 1) & tableMask;
      }
      if (repeat) {
        slot[base + i] = -1;
        continue;
      }
      table[s] = allUnits.length + 1;
      slot[base + i] = allUnits.length;
      keptHashes[allUnits.length] = hash;
      keptTermCounts[allUnits.length] = chunk.termCounts[i] as number;
      allUnits.push(unit);
      units.push(unit);
    }
    unitsBySource.push(units);
  }

  // Which of the question's terms a piece of text has, as a bit mask (32 terms per word): unions of
  // several pieces (a window, a page) are then an OR, and each term's weight is added once, in the
  // question's order, exactly as summing over a union of term sets would.
  const queryTerms = [...weights.keys()];
  // Each source's page title and headings, as terms.
  const headTerms = sources.map((source) => termSetCached([source.pageTitle, ...source.headings].join(' ')));
  // Each question term's units in each chunk, looked up once (the typo check, the named-term check and
  // the unit masks all need them), and whether any source has the term at all.
  const termPostings: (readonly number[] | undefined)[] = [];
  const present = scratch.int32(3, queryTerms.length).fill(0, 0, queryTerms.length);
  for (let t = 0; t < queryTerms.length; t++) {
    const term = queryTerms[t] as string;
    const hash = hashString(term);
    for (let rank = 0; rank < chunks.length; rank++) {
      const units = (chunks[rank] as ChunkAnalysis).unitsWith(term, hash);
      termPostings.push(units);
      if (units !== undefined) present[t] = 1;
    }
    if (present[t] === 0 && headTerms.some((set) => set.has(term))) present[t] = 1;
  }
  const spellings = typoSpellings(queryTerms, present, headTerms, chunks);
  const words = Math.max(1, Math.ceil(queryTerms.length / 32));
  const has = (mask: Uint32Array, at: number, t: number): boolean =>
    ((mask[at + (t >>> 5)] as number) & (1 << (t & 31))) !== 0;
  const maskOf = (set: ReadonlySet<string>): Uint32Array => {
    const mask = new Uint32Array(words);
    for (let t = 0; t < queryTerms.length; t++) {
      const forms = spellings[t] as string[];
      for (let f = 0; f < forms.length; f++) {
        if (!set.has(forms[f] as string)) continue;
        mask[t >>> 5] = (mask[t >>> 5] as number) | (1 << (t & 31));
        break;
      }
    }
    return mask;
  };
  const union = (into: Uint32Array, from: Uint32Array, at: number): void => {
    for (let w = 0; w < words; w++) into[w] = (into[w] as number) | (from[at + w] as number);
  };
  // Every kept unit's mask, `words` entries each in `allUnits` order, filled from the chunks' postings:
  // a lookup per question term and chunk instead of one per term and unit.
  const unitMasks = scratch.uint32(0, allUnits.length * words).fill(0, 0, allUnits.length * words);
  for (let t = 0; t < queryTerms.length; t++) {
    const bit = 1 << (t & 31);
    const word = t >>> 5;
    const forms = spellings[t] as string[];
    for (let f = 0; f < forms.length; f++) {
      const formHash = f === 0 ? 0 : hashString(forms[f] as string);
      for (let rank = 0; rank < chunks.length; rank++) {
        const units =
          f === 0
            ? termPostings[t * chunks.length + rank]
            : (chunks[rank] as ChunkAnalysis).unitsWith(forms[f] as string, formHash);
        if (units === undefined) continue;
        const base = slotStart[rank] as number;
        for (let k = 0; k < units.length; k++) {
          const at = slot[base + (units[k] as number)] as number;
          if (at >= 0) unitMasks[at * words + word] = (unitMasks[at * words + word] as number) | bit;
        }
      }
    }
  }

  // IDF over the units of these sources: a word in every sentence (the product name) says little.
  const n = Math.max(allUnits.length, 1);
  let totalWeight = 0;
  // Typed arrays of weights: a plain array switches between integer and double elements from one
  // question to the next, and code optimized for one kind is thrown away on the other.
  const termWeights = scratch.float64(0, queryTerms.length);
  for (let t = 0; t < queryTerms.length; t++) {
    let d = 0;
    for (let u = 0; u < allUnits.length; u++) if (has(unitMasks, u * words, t)) d++;
    const tw = scoringWeight(queryTerms[t] as string) * Math.log(1 + (n - d + 0.5) / (d + 0.5));
    totalWeight += tw;
    termWeights[t] = tw;
  }
  if (totalWeight === 0) return noCoverage(sources, phrases);
  const coverageOf = (mask: Uint32Array, at: number): number =>
    sumOfBits(mask, at, words, termWeights) / totalWeight;
  const headMasks = headTerms.map(maskOf);

  // Pages, not chunks, are what a citation points at: several chunks of one page are judged together.
  const pageCoverage = new Map<string, number>();
  const headingCoverage = new Map<RetrievedSource, number>();
  const pageMask = new Uint32Array(words);
  for (const [rank, source] of sources.entries()) {
    const heads = headMasks[rank] ?? new Uint32Array(words);
    headingCoverage.set(source, coverageOf(heads, 0));
    pageMask.set(heads);
    const start = unitStart[rank] as number;
    const count = unitsBySource[rank]?.length ?? 0;
    for (let u = start; u < start + count; u++) union(pageMask, unitMasks, u * words);
    for (const [o, other] of sources.entries())
      if (other.url === source.url && other !== source)
        union(pageMask, maskOf((chunks[o] as ChunkAnalysis).textTerms()), 0);
    pageCoverage.set(source.url, Math.max(pageCoverage.get(source.url) ?? 0, coverageOf(pageMask, 0)));
  }

  // Best coverage of a small window (a sentence, its neighbours and the chunk's headings): a page that has
  // every word of the question, but scattered, is usually about something else.
  const windowCoverage = new Map<string, number>();
  const windowShare = new Map<string, number>();
  // The same window's share of the question's words, each weighing as the question weighs it (everyday
  // words less) and not by their rarity among these few chunks, where a word no chunk has weighs the most.
  const plainWeights = scratch.float64(1, queryTerms.length);
  let plainTotal = 0;
  for (let t = 0; t < queryTerms.length; t++) {
    const w = weights.get(queryTerms[t] as string) ?? 0;
    plainWeights[t] = w;
    plainTotal += w;
  }
  const shareOf = (mask: Uint32Array): number =>
    plainTotal === 0 ? 0 : sumOfBits(mask, 0, words, plainWeights) / plainTotal;
  // A follow-up's own topical words ("windows" in "and on windows?"), apart from what it borrows: when
  // it has some, the answer must speak to at least one of them, not only to the previous question.
  const ownWeights =
    ownTopical.size === 0 ? null : Float64Array.from(queryTerms, (term) => (ownTopical.has(term) ? 1 : 0));
  const ownShare = new Map<string, number>();
  const window = new Uint32Array(words);
  for (const [rank, source] of sources.entries()) {
    const heads = headMasks[rank] ?? new Uint32Array(words);
    const start = unitStart[rank] as number;
    const count = unitsBySource[rank]?.length ?? 0;
    let best = windowCoverage.get(source.url) ?? 0;
    let bestShare = windowShare.get(source.url) ?? 0;
    for (let i = 0; i < count; i++) {
      window.set(heads);
      for (let j = Math.max(0, i - WINDOW); j <= Math.min(count - 1, i + WINDOW); j++)
        union(window, unitMasks, (start + j) * words);
      best = Math.max(best, coverageOf(window, 0));
      bestShare = Math.max(bestShare, shareOf(window));
      if (ownWeights !== null)
        ownShare.set(
          source.url,
          Math.max(ownShare.get(source.url) ?? 0, sumOfBits(window, 0, words, ownWeights)),
        );
    }
    windowCoverage.set(source.url, best);
    windowShare.set(source.url, bestShare);
  }

  const scored: ScoredUnit[] = [];
  const defined = definitionOf(question);
  for (let rank = 0; rank < sources.length; rank++) {
    const source = sources[rank] as RetrievedSource;
    // The same for every unit of the source: looked up once, and added in the same order as ever.
    const headingFactor = 1 + 0.5 * (headingCoverage.get(source) ?? 0);
    const pagePart = PAGE_WEIGHT * (pageCoverage.get(source.url) ?? 0);
    const rankPart = (RANK_WEIGHT * (sources.length - rank)) / sources.length;
    const searchPart = SEARCH_COVERAGE_WEIGHT * (source.coverage ?? 0);
    const start = unitStart[rank] as number;
    const units = unitsBySource[rank] as AnswerUnit[];
    const headingCov = headingCoverage.get(source) ?? 0;
    const opening =
      headingCov >= OPENING_MIN_HEADING ? units.findIndex((u) => u.kind !== 'code' && !isTableRow(u)) : -1;
    for (let j = 0; j < units.length; j++) {
      const own = coverageOf(unitMasks, (start + j) * words);
      // Lifted; admitted without a word of the question only when the headings hold all of it.
      const coverage = j === opening && (own > 0 || headingCov >= 1) ? Math.max(own, headingCov) : own;
      if (coverage === 0) continue;
      const counted = keptTermCounts[start + j] as number;
      const length = counted < 0 ? 30 : counted;
      // Long sentences match more words by chance; damp them gently.
      const lengthNorm = 1 / (1 + Math.max(0, length - 25) / 50);
      const defines = defined?.test((units[j] as AnswerUnit).text) === true;
      const score =
        coverage * lengthNorm * headingFactor +
        pagePart +
        rankPart +
        searchPart +
        (defines ? DEFINITION_BONUS : 0);
      scored.push({ unit: units[j] as AnswerUnit, source, rank, coverage, score });
    }
  }
  scored.sort(byScore);

  let prose = scored.filter((s) => s.unit.kind !== 'code');
  // A follow-up with words of its own is answered from a page that has one of them: the best sentence
  // of a page that only speaks to the previous question would repeat the previous answer.
  if (ownWeights !== null) prose = prose.filter((s) => (ownShare.get(s.source.url) ?? 0) > 0);
  const lead = prose[0];
  if (lead === undefined) return noCoverage(sources, phrases);
  if (sources.some((source) => source.coverage !== undefined)) {
    // Docent's search said how much of the question each chunk has, weighed over the whole site: the
    // decision every answerer shares (retrieval-strength.ts), then this answerer's own, on the window
    // it would quote from.
    if (isWeakRetrieval(sources)) return noCoverage(sources, phrases);
    const named = namedMissing(own, queryTerms, spellings, present) ? NAMED_MISSING_PENALTY : 0;
    const evidence =
      retrievalStrength(sources) + WINDOW_EVIDENCE * (windowShare.get(lead.source.url) ?? 0) - named;
    if (evidence < MIN_EVIDENCE) return noCoverage(sources, phrases);
  } else if (
    (windowCoverage.get(lead.source.url) ?? 0) < MIN_PAGE_COVERAGE ||
    lead.coverage < MIN_UNIT_COVERAGE
  ) {
    return noCoverage(sources, phrases);
  }

  // Quote from the lead's page only: a second page would often be a near miss and cost citation precision.
  const page = lead.source.url;
  const selected: ScoredUnit[] = [lead];
  for (const candidate of prose) {
    if (selected.length > MAX_SUPPORTING) break;
    if (candidate === lead || candidate.source.url !== page) continue;
    if (candidate.coverage < MIN_SUPPORT_COVERAGE) continue;
    // A table row read out of its table (`data-server` | where widget.js came from | …) says little
    // without its header: it supports a lead that is a row of a table, not a sentence.
    if (isTableRow(candidate.unit) && !isTableRow(lead.unit)) continue;
    // Compared on the sentence's own part of the score: the page part is the same for every candidate.
    const pagePart = PAGE_WEIGHT * (pageCoverage.get(page) ?? 0);
    if (candidate.score - pagePart < SUPPORT_RATIO * (lead.score - pagePart)) continue;
    selected.push(candidate);
  }
  // The sentence right after the lead usually finishes its thought ("… as follows:", a condition).
  const follower = nextUnit(lead, unitsBySource[lead.rank] ?? []);
  if (
    follower !== undefined &&
    follower.block === lead.unit.block &&
    !selected.some((s) => s.unit === follower)
  ) {
    selected.push({ ...lead, unit: follower, coverage: 0, score: 0 });
  }
  // Before the lists and code are picked: a list comes with the sentence that introduces it, kept.
  const unique = [lead, ...withoutRepeats(lead, selected.slice(1))];
  const extra = listAndCode(unique, unitsBySource, lead, question);

  return render(lead, [...unique.slice(1), ...extra]);
}

/** Shortest sentence (in words) that counts as a repeat: shorter ones are headings that name what follows. */
const MIN_REPEAT_WORDS = 6;
/** Most words of a heading glued to a repeated sentence. */
const MAX_GLUED_WORDS = 8;
/** Marks that end or join statements: words added with one of them say something of their own. */
const STATEMENT_MARKS = /[,.;:!]/g;

/**
 * The units, less the sentences that repeat one quoted before them: the same sentence scraped twice,
 * once with its heading glued on ("Role namesThe Text Completions API expects…" beside "Role names The
 * Text Completions API expects…"), compared without spaces. A sentence the quoted one holds whole says
 * nothing new; one that holds the quoted one whole says nothing new either when what it adds is a few
 * words and no statement mark (a heading), so "In version 3, the SDK retries…" after "The SDK retries…"
 * stays, and so do sentences that differ inside ("… supports …" and "… does not support …"). Items and
 * code are kept.
 */
function withoutRepeats(lead: ScoredUnit, rest: readonly ScoredUnit[]): ScoredUnit[] {
  const kept: AnswerUnit[] = [lead.unit];
  const out: ScoredUnit[] = [];
  for (const s of rest) {
    const unit = s.unit;
    if (unit.kind === 'sentence' && kept.some((k) => k.kind === 'sentence' && repeats(unit, k))) continue;
    kept.push(unit);
    out.push(s);
  }
  return out;
}

function repeats(unit: AnswerUnit, quoted: AnswerUnit): boolean {
  const own = unit.key.replaceAll(' ', '');
  const before = quoted.key.replaceAll(' ', '');
  const ownWords = wordCount(unit.key);
  const beforeWords = wordCount(quoted.key);
  if (ownWords >= MIN_REPEAT_WORDS && before.includes(own)) return true;
  return (
    beforeWords >= MIN_REPEAT_WORDS &&
    own.includes(before) &&
    ownWords - beforeWords <= MAX_GLUED_WORDS &&
    marks(unit.text) <= marks(quoted.text)
  );
}

const wordCount = (key: string): number => (key === '' ? 0 : key.split(' ').length);
const marks = (text: string): number => text.match(STATEMENT_MARKS)?.length ?? 0;

/** The version every source was searched in, or null (none, or sources of several searches). */
function searchedVersionOf(sources: readonly RetrievedSource[]): string | null {
  const version = sources[0]?.searchedVersion ?? null;
  return sources.every((source) => (source.searchedVersion ?? null) === version) ? version : null;
}

/**
 * For a question that only asks what something is ("what is MCP?", "What are thread keys"), a pattern
 * matching a sentence that defines it: the name first (after "The"/"A"), an optional aside between commas
 * or parentheses, then "is", "are", "means" or "stands for". Null for any other question.
 */
export function definitionOf(question: string): RegExp | null {
  const asked = /^\s*what(?:'s|\s+is|\s+are)\s+(?:(?:an?|the)\s+)?([^?!]+?)\s*[?!.]*\s*$/i.exec(question);
  const subject = asked?.[1]?.trim();
  if (subject === undefined || subject === '') return null;
  // "what is it?", a follow-up: "It is free for…" defines nothing it asks about.
  if (/^(?:it|this|that|these|those|they|them)$/i.test(subject)) return null;
  const words = subject.split(/\s+/);
  if (words.length > MAX_DEFINED_WORDS || words.some((w) => /^(and|or|vs\.?|versus)$/i.test(w))) return null;
  const name = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+');
  return new RegExp(
    `^(?:(?:the|an?)\\s+)?\`?${name}\`?(?:\\s*\\([^)]{0,80}\\)|,[^,]{1,80},)?\\s+(?:is|are|means|stands\\s+for)\\b`,
    'i',
  );
}

/**
 * Whether the question names something (a capitalised word past its start, an identifier with capitals
 * inside, digits, `_` or `.`) that none of the sources has: "Terraform", "GraphQL", "Java SDK". The docs
 * rarely answer a question about a thing they never name.
 */
function namedMissing(
  question: string,
  queryTerms: readonly string[],
  spellings: readonly string[][],
  present: Int32Array,
): boolean {
  const named = namedTerms(question);
  if (named.size === 0) return false;
  for (const [t, term] of queryTerms.entries()) {
    if (!named.has(term)) continue;
    // A typo spelling is a term some source has, so a term with one is found.
    const found = present[t] === 1 || (spellings[t]?.length ?? 0) > 1;
    if (!found) return true;
  }
  return false;
}

/** Shortest question term (a stem) tried against the sources' terms for a one-letter typo. */
const MIN_TYPO_TERM = 5;

/**
 * Each question term and the spellings it matches: itself, and when the sources never use it, the
 * sources' terms one edit away ("telemtri" finds "telemetri"). Only the sources' own few hundred terms
 * are tried, never the site's. (A chunk's units that repeat another chunk's have the same terms, so the
 * chunks' whole vocabularies are the terms of the units the answer keeps.)
 */
function typoSpellings(
  queryTerms: readonly string[],
  present: Int32Array,
  heads: readonly ReadonlySet<string>[],
  chunks: readonly ChunkAnalysis[],
): string[][] {
  return queryTerms.map((term, t) => {
    // A short form ("env") also matches its long form ("environment") where the sources have it.
    const out = [term];
    for (const long of longFormTerms(term, 'english')) {
      const hash = hashString(long);
      if (
        chunks.some((chunk) => chunk.unitsWith(long, hash) !== undefined) ||
        heads.some((set) => set.has(long))
      )
        out.push(long);
    }
    if (present[t] === 1 || out.length > 1 || term.length < MIN_TYPO_TERM || /\d/.test(term)) return out;
    const consider = (candidate: string): void => {
      if (candidate.length < MIN_TYPO_TERM) return;
      // withinOneEdit refuses most candidates on their first two letters, before comparing them whole.
      if (withinOneEdit(term, candidate) && !out.includes(candidate)) out.push(candidate);
    };
    for (const chunk of chunks)
      for (let length = term.length - 1; length <= term.length + 1; length++)
        for (const candidate of chunk.vocabularyByLength[length] ?? []) consider(candidate);
    for (const set of heads) for (const candidate of set) consider(candidate);
    return out;
  });
}

/**
 * The sum of `weights[t]` over the terms `t` whose bit is set in `mask[at…at+words)`, added in ascending
 * `t` (the order a loop over every term would add them in, so the same double comes out), visiting only
 * the set bits.
 */
function sumOfBits(mask: Uint32Array, at: number, words: number, weights: Float64Array): number {
  let sum = 0;
  for (let w = 0; w < words; w++) {
    let bits = mask[at + w] as number;
    while (bits !== 0) {
      const low = bits & -bits;
      sum += weights[w * 32 + 31 - Math.clz32(low)] as number;
      bits ^= low;
    }
  }
  return sum;
}

function byScore(a: ScoredUnit, b: ScoredUnit): number {
  return b.score - a.score || a.rank - b.rank || a.unit.index - b.unit.index;
}

function nextUnit(of: ScoredUnit, units: readonly AnswerUnit[]): AnswerUnit | undefined {
  const i = units.indexOf(of.unit);
  const next = units[i + 1];
  return next !== undefined && next.kind !== 'code' ? next : undefined;
}

const HOW_TO = /\b(how|steps?|install|set ?up|configure|create|enable|run|example|code|command|connect)\b/i;

/**
 * For how-to questions: the list of steps a selected sentence introduces (or belongs to), and the code
 * block right after a selected sentence.
 */
function listAndCode(
  selected: readonly ScoredUnit[],
  unitsBySource: readonly AnswerUnit[][],
  lead: ScoredUnit,
  question: string,
): ScoredUnit[] {
  const howTo = HOW_TO.test(question);
  const units = unitsBySource[lead.rank] ?? [];
  const chosen = new Set(selected.filter((s) => s.rank === lead.rank).map((s) => s.unit));
  const out: ScoredUnit[] = [];
  const add = (unit: AnswerUnit): void => {
    if (chosen.has(unit)) return;
    chosen.add(unit);
    out.push({ ...lead, unit, coverage: 0, score: 0 });
  };
  for (const s of selected) {
    if (s.rank !== lead.rank) continue;
    // Steps and commands answer a how-to; a sentence that introduces its list or code ("…accept this
    // shape:") reads as cut short without it, whatever was asked.
    const introduces = /:$/.test(s.unit.text);
    if (!howTo && !introduces) continue;
    const i = units.indexOf(s.unit);
    const next = units[i + 1];
    if (s.unit.kind === 'item' || (next?.kind === 'item' && introduces)) {
      const block = s.unit.kind === 'item' ? s.unit.block : next?.block;
      const items = units.filter((u) => u.kind === 'item' && u.block === block).slice(0, MAX_LIST_ITEMS);
      for (const item of items) add(item);
    } else if (introduces && next !== undefined && isTableRow(next)) {
      // "…looks for these files:" and the table it introduces, its rows as a list.
      const rows = units.filter((u) => u.block === next.block && isTableRow(u)).slice(0, MAX_LIST_ITEMS);
      for (const row of rows) add(row);
    }
    if (next?.kind === 'code' && out.every((u) => u.unit.kind !== 'code')) add(next);
  }
  return out;
}

function render(lead: ScoredUnit, rest: readonly ScoredUnit[]): BuiltinAnswer {
  const cite = (s: ScoredUnit): string => ` [${s.source.id}]`;
  // A lead that is a step or a table row quoted with others of its list or table is read in their
  // order, inside it: step 1 as a paragraph above the bullets of steps 2 and 3, or a row above its
  // table's header, reads as something else.
  const listed = (s: ScoredUnit): boolean => s.unit.kind === 'item' || isTableRow(s.unit);
  const inList =
    listed(lead) && rest.some((s) => s.rank === lead.rank && s.unit.block === lead.unit.block && listed(s));
  const ordered = (inList ? [lead, ...rest] : [...rest]).sort(
    (a, b) => a.rank - b.rank || a.unit.index - b.unit.index,
  );
  const blocks: string[] = inList ? [] : [`${lead.unit.text}${cite(lead)}`];
  let paragraph: string[] = [];
  let list: ScoredUnit[] = [];
  const flushParagraph = (): void => {
    if (paragraph.length > 0) blocks.push(paragraph.join(' '));
    paragraph = [];
  };
  const flushList = (): void => {
    if (list.length > 0) blocks.push(listLines(list, cite).join('\n'));
    list = [];
  };
  for (const s of ordered) {
    // A table's rows one a line, as a list: run together in a paragraph, their cells blur.
    if (listed(s)) {
      flushParagraph();
      list.push(s);
    } else if (s.unit.kind === 'code') {
      flushParagraph();
      flushList();
      blocks.push(s.unit.text);
    } else {
      flushList();
      paragraph.push(`${s.unit.text}${cite(s)}`);
    }
  }
  flushParagraph();
  flushList();
  const text = blocks.join('\n\n');
  return { text, citedIds: citedSourceIds(text), covered: true };
}

/**
 * Quoted steps and rows, one a line. A numbered step keeps its number (the reader follows them in order)
 * where the answer's Markdown shows that number: it renders numbered lines that follow one another as one
 * list counting up from the first, so a run of them whose numbers do not count up by one (steps 2 and 5,
 * a nested list's "1." under step 1, the steps of two lists one after the other) would be shown with
 * numbers the docs do not have, and in plain text reads as two lists run together: its steps are bullets.
 */
function listLines(items: readonly ScoredUnit[], cite: (s: ScoredUnit) => string): string[] {
  const lines: string[] = [];
  let run: ScoredUnit[] = [];
  const flushRun = (): void => {
    const counts = run.every(
      (s, i) => i === 0 || s.unit.ordinal === (run[i - 1]?.unit.ordinal ?? Number.NaN) + 1,
    );
    for (const s of run) lines.push(`${counts ? `${s.unit.ordinal}.` : '-'} ${s.unit.text}${cite(s)}`);
    run = [];
  };
  for (const s of items) {
    if (s.unit.ordinal !== undefined) {
      run.push(s);
      continue;
    }
    flushRun();
    lines.push(`- ${s.unit.text}${cite(s)}`);
  }
  flushRun();
  return lines;
}

function noCoverage(sources: readonly RetrievedSource[], phrases: Phrases): BuiltinAnswer {
  const pages: RetrievedSource[] = [];
  for (const source of sources) {
    if (pages.length === 3) break;
    if (!pages.some((p) => p.url === source.url)) pages.push(source);
  }
  const lines = [phrases.noCoverage];
  if (pages.length > 0) {
    lines.push('', phrases.closestPages);
    for (const page of pages) lines.push(`- [${escapeLinkText(sectionTitle(page))}](${page.url})`);
  }
  return { text: lines.join('\n'), citedIds: [], covered: false };
}

/**
 * A section as a reader tells it apart: its page's title and its own heading (`Installation › Install
 * with Docker`), so that three sections of one page are not three links named alike.
 */
function sectionTitle(source: RetrievedSource): string {
  const heading = source.headings.at(-1)?.trim();
  return heading && heading !== source.pageTitle.trim()
    ? `${source.pageTitle} › ${heading}`
    : source.pageTitle;
}

function escapeLinkText(text: string): string {
  return text.replace(/([[\]\\])/g, '\\$1');
}

/** The question's terms, the borrowed question's (a follow-up's), and the context items' words, weighed. */
function queryWeights(
  asked: readonly string[],
  context: readonly AnswerContextItem[],
  borrowed: readonly string[],
): Map<string, number> {
  const weights = new Map<string, number>();
  const generic = (term: string): number => (GENERIC_TERMS.has(term) ? GENERIC_WEIGHT : 1);
  for (const term of asked) weights.set(term, generic(term));
  // "what happens when I go over it?" after "what's the rate limit?" asks about rate limits: without
  // the earlier question's words, nothing but everyday words is left to find a sentence by.
  for (const term of borrowed) if (!weights.has(term)) weights.set(term, FOLLOW_UP_WEIGHT * generic(term));
  for (const item of context) {
    // A long snippet would drown the question: only its first distinct terms count.
    let taken = 0;
    for (const term of terms(item.value)) {
      if (taken >= 30) break;
      if (weights.has(term)) continue;
      weights.set(term, CONTEXT_WEIGHT);
      taken++;
    }
  }
  return weights;
}
