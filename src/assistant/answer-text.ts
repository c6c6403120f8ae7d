/**
 * Text handling for the built-in answerer: a small English tokenizer with Snowball stemming, and the
 * splitting of a retrieved chunk into answer units (sentences, list items, code blocks).
 *
 * Kept local to the assistant on purpose: the answerer ranks sentences within a handful of chunks, and its
 * behaviour must not shift when the search engine's analyzer is retuned.
 */
import { STORED_CELL_SEPARATOR } from '../ingest/table-cells.ts';
import { getStemmer } from '../search/stemmer.ts';
import {
  CJK_FUNCTION_WORDS,
  RTL_FUNCTION_WORDS,
  SWAPPED_QUESTION_WORDS,
  stopWordsFor,
  UNMARKED_CONTRACTIONS,
} from '../search/stop-words.ts';

/** English Snowball stemming, memoised: the search analyzer's stemmer (the algorithm, not its tokenizer). */
export const stem = getStemmer('english');

/** Function words and question scaffolding ("how do I…") that say nothing about the topic. */
const STOP_WORDS = new Set(
  `a about above after again all also am an and any are as at be because been before being below between both
  but by can could did do does doing done down during each either else etc few for from further get gets got
  had has have having he her here hers him his how i if in into is it its itself just let lets like may me
  might more most much must my need needs no nor not now of off on once one only or other our ours out over
  own please same shall she should so some such tell than that the their theirs them then there these they
  this those through to too under until up us use used uses using very via want was way we well were what
  when where whether which while who whom whose why will with within without would yes yet you your yours
  explain describe difference different possible able many two three four five several
  isn aren wasn weren don doesn didn won wont can cannot couldn shouldn haven hasn ${UNMARKED_CONTRACTIONS} ${SWAPPED_QUESTION_WORDS}`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/**
 * Everyday words of any manual or API guide ("set", "screen", "connect", "information"): matching them
 * says little about whether a page is on the question's topic, so they weigh less than the rest. Stems.
 */
export const GENERIC_TERMS = new Set(
  `access account add allow appear applic automat avail back basic button call chang check choos click close
  complet connect control creat current data default delet devic display download edit enabl end error exampl
  featur file find first follow function go guid happen help inform input instal instruct item key last learn level list
  make manag manual menu messag method mode name network new next note number off on open option output page
  part possibl press problem procedur program provid receiv remov request requir reset result run save screen
  search section select send servic set show sign simpl specif start state status step stop support system
  take test text thing time tri turn type updat user valu version view wait work`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/**
 * Questions asked in another language than English ("Comment connecter un dépôt ?"): the search's stop
 * list of each language (their words not in English), plus that language's question scaffolding. A
 * question's function words would otherwise count as words the docs must cover.
 */
const OTHER_LANGUAGES: { name: string; own: ReadonlySet<string> }[] = (
  [
    [
      'french',
      'peut peuvent peux puis faut faire fait existe possible ai avoir être alors bien voudrais veux',
    ],
    ['portuguese', 'posso pode podem fazer faço existe possível ter'],
    ['spanish', 'puedo puede pueden hacer hago existe posible tener'],
    ['german', 'gibt geht machen möglich'],
  ] as const
).map(([name, scaffolding]) => {
  const english = stopWordsFor('english');
  const own = new Set([...stopWordsFor(name)].filter((w) => !english.has(w)));
  for (const word of scaffolding.split(' ')) own.add(word);
  return { name, own };
});

/** For each word of `OTHER_LANGUAGES`, the languages (bit `l` for `OTHER_LANGUAGES[l]`) that have it: one
 * lookup per question word instead of one per word and language. */
const LANGUAGES_OF = new Map<string, number>();
for (const [l, language] of OTHER_LANGUAGES.entries())
  for (const word of language.own) LANGUAGES_OF.set(word, (LANGUAGES_OF.get(word) ?? 0) | (1 << l));

/**
 * The extra stop words of the language a question is asked in: none for English, else those of the
 * language with the most function words in it (at least two, or one in a question of few words).
 */
function questionStopWords(questionWords: readonly string[]): ReadonlySet<string> | undefined {
  const counts = new Int32Array(OTHER_LANGUAGES.length);
  for (const word of questionWords) {
    const languages = LANGUAGES_OF.get(word);
    if (languages === undefined) continue;
    for (let l = 0; l < OTHER_LANGUAGES.length; l++)
      if ((languages & (1 << l)) !== 0) counts[l] = (counts[l] as number) + 1;
  }
  let best: ReadonlySet<string> | undefined;
  let bestCount = 0;
  for (const [l, language] of OTHER_LANGUAGES.entries()) {
    const count = counts[l] as number;
    if (count > bestCount) {
      best = language.own;
      bestCount = count;
    }
  }
  return bestCount >= 2 || (bestCount === 1 && questionWords.length <= 4) ? best : undefined;
}

/** `terms` of a question, which may be asked in another language than English (see `OTHER_LANGUAGES`). */
export function questionTerms(text: string): string[] {
  const all = segmentedWords(text);
  return termsOfWords(all, questionStopWords(all));
}

/**
 * Terms of the words a question spells as names or identifiers: capitalised past the question's first
 * word ("Terraform", "Java"), or with capitals inside, digits, `_` or `.` ("GraphQL", "gpt-4o", "max_rpm").
 */
export function namedTerms(question: string): Set<string> {
  const out = new Set<string>();
  if (!isAscii(question)) {
    const tokens = question.match(/[\p{L}\p{N}][\p{L}\p{N}_.'-]*/gu) ?? [];
    for (const [i, token] of tokens.entries()) {
      const rest = token.slice(1);
      const named = (i > 0 && /^\p{Lu}/u.test(token)) || /\p{Lu}.*\p{Lu}|\d|_|\./u.test(rest);
      if (!named) continue;
      for (const term of terms(token)) out.add(term);
    }
    return out;
  }
  // The same tokens and tests, on character codes: in ASCII a letter is A-Z or a-z, a capital A-Z.
  let i = 0;
  let index = 0;
  while (i < question.length) {
    if (!isAsciiAlphanumeric(question.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let capitalsAfterFirst = 0;
    let marked = false;
    for (i++; i < question.length; i++) {
      const c = question.charCodeAt(i);
      if (c >= 65 && c <= 90) capitalsAfterFirst++;
      else if ((c >= 48 && c <= 57) || c === 95 || c === 46) marked = true;
      else if (!isAsciiAlphanumeric(c) && c !== 39 && c !== 45) break;
    }
    const first = question.charCodeAt(start);
    const named = (index > 0 && first >= 65 && first <= 90) || capitalsAfterFirst >= 2 || marked;
    index++;
    if (!named) continue;
    for (const term of terms(question.slice(start, i))) out.add(term);
  }
  return out;
}

/** Scripts written without spaces between words (see the search's tokenize.ts). */
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;
const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

const HAN_OR_KATAKANA = /^[\p{Script=Han}\p{Script=Katakana}]$/u;
/** Chinese and Japanese function words (the search's) and question scaffolding ("…の方法は"). */
const CJK_STOP_WORDS = new Set(
  `${CJK_FUNCTION_WORDS} ${RTL_FUNCTION_WORDS} 中 上 下 里 后 前 时 需要 一个 这个 那个 时候 方法 方 教え できる できます ありますか
  ため こと もの これ それ あれ`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Lowercase alphanumeric words, as written (no stemming, stop words kept). */
export function words(text: string): string[] {
  const lower = text.toLowerCase();
  if (!isAscii(lower)) return lower.match(/[\p{L}\p{N}]+/gu) ?? [];
  // ASCII (most docs text): letters and digits are a-z and 0-9, found without the Unicode regex.
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(lower.slice(start, i));
      start = -1;
    }
  }
  if (start >= 0) out.push(lower.slice(start));
  return out;
}

/**
 * `words`, with Chinese and Japanese runs cut into their words: they put no spaces between words, so
 * "如何创建密钥" is three words (Intl.Segmenter's dictionary, as the search's tokenizer finds them), not
 * one that no sentence of the docs has.
 */
export function segmentedWords(text: string): string[] {
  const runs = words(text);
  if (!UNSPACED_SCRIPT.test(text)) return runs;
  const out: string[] = [];
  for (const run of runs) {
    if (!UNSPACED_SCRIPT.test(run)) out.push(run);
    else for (const s of segmenter.segment(run)) if (s.isWordLike) out.push(s.segment);
  }
  return out;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}

function isAsciiAlphanumeric(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/** Index terms: lowercase alphanumeric words minus stop words, Snowball-stemmed. */
export function terms(text: string, extraStopWords?: ReadonlySet<string>): string[] {
  return termsOfWords(segmentedWords(text), extraStopWords);
}

function termsOfWords(all: readonly string[], extraStopWords: ReadonlySet<string> | undefined): string[] {
  const out: string[] = [];
  for (const word of all) {
    // Single letters and long digit runs are noise (list markers, ids, timestamps); a single Han or
    // katakana character is often a word of its own (the segmenter cuts 密钥 into 密 and 钥).
    if ((word.length < 2 && !HAN_OR_KATAKANA.test(word)) || isLongDigitRun(word)) continue;
    if (STOP_WORDS.has(word) || CJK_STOP_WORDS.has(word) || extraStopWords?.has(word)) continue;
    out.push(stem(word));
  }
  return out;
}

/** `/^\d{5,}$/` (ASCII digits only, as `\d` without the `u` flag). */
function isLongDigitRun(word: string): boolean {
  if (word.length < 5) return false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

export type UnitKind = 'sentence' | 'item' | 'code';

/** A piece of a chunk the answer can quote verbatim. */
export interface AnswerUnit {
  kind: UnitKind;
  /** Verbatim text (a code unit holds the whole fenced block). */
  text: string;
  /** Position in the chunk, for keeping the document's order. */
  index: number;
  /** Paragraph/list block the unit belongs to; adjacent items of one list share it. */
  block: number;
  /** An item of a numbered list: its number ("3." or "3)" in the docs), so a quoted step keeps it. */
  ordinal?: number;
  terms: string[];
  /** `terms` as a set, and `dedupeKey(text)`: computed once, since units are cached across requests. */
  termSet: ReadonlySet<string>;
  key: string;
}

const FENCE = /^\s*(```|~~~)/;
const LIST_MARKER = /^\s*(?:[-*+•]|\d{1,2}[.)])\s+/;
const ORDINAL_MARKER = /^\s*(\d{1,2})[.)]\s/;
const HEADING = /^\s{0,3}#{1,6}\s+/;
const TERMINAL = /[.!?:;)"'’”。！？：；）」』]$/;
// Sentence boundary: terminal punctuation, space, then something that can start a sentence.
// A sentence may start with a letter of a script without case (Arabic, Hebrew: "… فقط. يظهر …").
// Chinese and Japanese end a sentence with 。！？ and start the next without a space.
const SENTENCE_BREAK =
  /(?<=[.!?؟])["'’”)]?\s+(?=["'‘“(«]?[\p{Lu}\p{Lo}\p{N}]|`)|(?<=[。！？]["”」』）)]?)\s*(?=[^\s"”」』）)。！？])/u;
// Abbreviations that end in a period but rarely end a sentence.
const ABBREVIATION = /(?:\b(?:e\.g|i\.e|etc|vs|approx|incl|Mr|Ms|Dr|No|Fig)\.|\b[A-Z]\.)$/;

/** Longest run of prose worth quoting; longer lines are flattened tables or code, not sentences. */
const MAX_UNIT_WORDS = 80;

/** Entries kept by each cache below; a cache starts over when full. */
const TERM_CACHE_ENTRIES = 4_000;

const termCache = new Map<string, readonly string[]>();

/** `terms` of text seen before (a chunk's page title and headings recur with every chunk of the section). */
export function termsCached(text: string): readonly string[] {
  let out = termCache.get(text);
  if (out === undefined) {
    out = terms(text);
    if (termCache.size >= TERM_CACHE_ENTRIES) termCache.clear();
    termCache.set(text, out);
  }
  return out;
}

const termSetCache = new Map<string, ReadonlySet<string>>();

/** `termsCached` as a set (membership tests of heading lines). */
export function termSetCached(text: string): ReadonlySet<string> {
  let out = termSetCache.get(text);
  if (out === undefined) {
    out = new Set(termsCached(text));
    if (termSetCache.size >= TERM_CACHE_ENTRIES) termSetCache.clear();
    termSetCache.set(text, out);
  }
  return out;
}

/**
 * Splits chunk text into units. Besides Markdown structure it repairs text whose lines were broken
 * mid-sentence (manuals converted from PDF put a blank line wherever an icon was): a line that does not
 * end a sentence joins the next when that one starts in lowercase.
 */
export function splitUnits(text: string): AnswerUnit[] {
  const units: AnswerUnit[] = [];
  let block = 0;
  let index = 0;
  const push = (kind: UnitKind, raw: string, unitBlock: number, ordinal?: number): void => {
    // `trimEnd` drops exactly what `/\s+$/` matches (white space and line terminators), without the
    // regex's retries at every run of indentation in a code block.
    const clean = kind === 'code' ? raw.trimEnd() : raw.replace(/\s+/g, ' ').trim();
    if (clean.length === 0) return;
    // The terms and the key both come from the words: found once.
    const unitWords = segmentedWords(clean);
    const unitTerms = termsOfWords(unitWords, undefined);
    units.push({
      kind,
      text: clean,
      index: index++,
      block: unitBlock,
      terms: unitTerms,
      termSet: new Set(unitTerms),
      key: unitWords.join(' '),
      ...(ordinal === undefined ? {} : { ordinal }),
    });
  };

  const lines = text.split('\n');
  // Pending prose: lines joined into one paragraph until it ends a sentence or a new block starts.
  let paragraph = '';
  let paragraphBlock = 0;
  let lastBlankOrBreak = true;
  // A list item's text until it ends: a line wrapped at a fixed width (most docs' source) is the rest
  // of it, not a paragraph of its own.
  let item: string | undefined;
  let itemBlock = 0;
  let itemOrdinal: number | undefined;
  const flush = (): void => {
    if (item !== undefined) push('item', item, itemBlock, itemOrdinal);
    item = undefined;
    if (paragraph.trim().length > 0) {
      for (const sentence of splitSentences(paragraph)) push('sentence', sentence, paragraphBlock);
    }
    paragraph = '';
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (FENCE.test(line)) {
      flush();
      const fence = (line.match(FENCE)?.[1] ?? '```') as string;
      const body: string[] = [line];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trimStart().startsWith(fence)) body.push(lines[i++] ?? '');
      body.push(fence);
      block++;
      push('code', body.join('\n'), block);
      block++;
      lastBlankOrBreak = true;
      continue;
    }
    const trimmed = line.trim();
    if (trimmed.length === 0) {
      lastBlankOrBreak = true;
      continue;
    }
    if (HEADING.test(line)) {
      flush();
      block++;
      lastBlankOrBreak = true;
      continue;
    }
    if (LIST_MARKER.test(line)) {
      flush();
      if (lastBlankOrBreak) block++;
      item = trimmed.replace(LIST_MARKER, '');
      itemBlock = block;
      const ordinal = ORDINAL_MARKER.exec(line)?.[1];
      itemOrdinal = ordinal === undefined ? undefined : Number(ordinal);
      lastBlankOrBreak = false;
      continue;
    }
    // An item's own lines are indented as stored (mdx-to-sections.ts); a line after one that ends no
    // sentence goes on with it. After one that does, it may as well be the item's next paragraph (stored
    // lists keep no blank line between them), quoted on its own; a table, quote or tag is never glued on.
    if (
      item !== undefined &&
      !lastBlankOrBreak &&
      !TERMINAL.test(item) &&
      /^\s/.test(line) &&
      !/^[|><]/.test(trimmed)
    ) {
      item += ` ${trimmed}`;
      continue;
    }
    const continues =
      paragraph.length > 0 && !TERMINAL.test(paragraph.trimEnd()) && /^[\p{Ll}]/u.test(trimmed);
    if (continues) {
      paragraph += ` ${trimmed}`;
      continue;
    }
    flush();
    if (lastBlankOrBreak) block++;
    paragraph = trimmed;
    paragraphBlock = block;
    lastBlankOrBreak = false;
  }
  flush();
  return units.filter(isQuotable);
}

function splitSentences(paragraph: string): string[] {
  const parts = paragraph.split(SENTENCE_BREAK);
  const out: string[] = [];
  for (const part of parts) {
    const previous = out[out.length - 1];
    if (previous !== undefined && (ABBREVIATION.test(previous) || unclosed(previous)))
      out[out.length - 1] = `${previous} ${part}`;
    else out.push(part);
  }
  return out;
}

/** Longest sentence kept open for its closing bracket or quote: a stray "(" must not glue a paragraph. */
const MAX_UNCLOSED_CHARS = 400;

/**
 * Whether `text` ends inside inline code, parentheses or a quotation: the "!" in `("Hello! I answer…")`
 * or a "." in code does not end the sentence around it, and a quote cut there breaks its markup.
 */
function unclosed(text: string): boolean {
  if (text.length > MAX_UNCLOSED_CHARS) return false;
  let ticks = 0;
  let open = 0;
  let quotes = 0;
  let curly = 0;
  for (const char of text) {
    if (char === '`') ticks++;
    else if (ticks % 2 === 1) continue;
    else if (char === '(') open++;
    else if (char === ')') open--;
    else if (char === '"') quotes++;
    else if (char === '“') curly++;
    else if (char === '”') curly--;
  }
  return ticks % 2 === 1 || open > 0 || quotes % 2 === 1 || curly > 0;
}

/** Drops what reads badly when quoted: bare labels, flattened tables and code written as prose. */
function isQuotable(unit: AnswerUnit): boolean {
  if (unit.kind === 'code') return unit.text.split('\n').length <= 40;
  // Inline code (`--version`, `"filter": {…}`) is marked as code by the writer: it reads as one word.
  const text = unit.text.replace(/`[^`\n]+`/g, 'code');
  // JSON and code pasted into prose (`{"text": …`, `x = f(y)`) is not a sentence to quote.
  if (/^[{[]/.test(text) || /":\s|\w\(|\)\s*[;{]|\s=\s/.test(text)) return false;
  // A fragment left where an icon or label was cut out (", you can view…") reads as broken text.
  if (/^[,;.)\]]/.test(text)) return false;
  const all = text.split(/\s+/);
  if (all.length > MAX_UNIT_WORDS) return false;
  // A table's row (isTableRow): numbers and names are what it is made of, so
  // it is quotable when one cell at least has letters ("Team | 600 | 50,000"), however few words it has.
  if (isTableRow(unit)) return unit.text.split(STORED_CELL_SEPARATOR).some((cell) => /\p{L}/u.test(cell));
  if (unit.kind === 'sentence' && all.length < 4 && !TERMINAL.test(unit.text)) return false;
  // Navigation scraped with the page: headings run together ("IntroductionBenefits of RoutingAdvantages",
  // "through prompting.Claude CookbooksLearn with…"), or listed in a row of capitalised titles with no
  // sentence around them ("Event types Ping events Error events Other events Delta types").
  const glued = all.filter((w) => /^\p{Lu}?\p{Ll}+\p{Lu}\p{Ll}/u.test(w)).length;
  if (glued >= 2 && !TERMINAL.test(unit.text)) return false;
  if (all.some((w) => /\p{Ll}[.!?]\p{Lu}\p{Ll}/u.test(w))) return false;
  const capitalised = all.filter((w) => /^\p{Lu}/u.test(w)).length;
  if (unit.kind === 'sentence' && !TERMINAL.test(unit.text)) {
    if (all.length >= 8 && capitalised / all.length >= 0.5) return false;
  }
  // A Chinese or Japanese sentence is one "word" between spaces, with its own punctuation (，“”。):
  // wordy when letters are most of it.
  const wordy = all.filter((w) =>
    UNSPACED_SCRIPT.test(w)
      ? (w.match(/\p{L}/gu)?.length ?? 0) >= 0.6 * w.length
      : /^[\p{L}][\p{L}'’-]*[,.;:!?。！？，、]?$/u.test(w),
  ).length;
  return wordy / all.length >= 0.6;
}

/** Same text modulo case, spacing and punctuation: scraped docs repeat tab contents verbatim. */
export function dedupeKey(text: string): string {
  return words(text).join(' ');
}

/** A table's row, as ingestion stores one: its cells joined by STORED_CELL_SEPARATOR. */
export const isTableRow = (unit: AnswerUnit): boolean => unit.text.includes(STORED_CELL_SEPARATOR);
