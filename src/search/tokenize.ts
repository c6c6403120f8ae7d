import { getStemmer } from './stemmer.ts';
import { stopWordsFor } from './stop-words.ts';

/**
 * Candidate tokens: runs of letters/marks/digits/underscore, joined by `.`, `-` or an apostrophe so that
 * identifiers and versions (`config.yaml`, `v1.2`, `state-of-the-art`, `snake_case`) arrive whole and
 * can be emitted both whole and split.
 */
const RAW_TOKEN = /[\p{L}\p{M}\p{N}_]+(?:['’.-][\p{L}\p{M}\p{N}_]+)*/gu;
const SEPARATORS = /['’._-]+/;
/** `retrievalPageSize` → retrieval|Page|Size; `HTTPServer` → HTTP|Server. */
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
/** Scripts written without spaces between words: only a dictionary segmenter finds the words. */
const DICTIONARY_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const HANGUL = /\p{Script=Hangul}/u;
const LETTERS_ONLY = /^\p{L}+$/u;
const LATIN_WITH_DIACRITICS = /^(?=.*[^\p{ASCII}])[\p{Script=Latin}\p{M}\p{N}_.'’-]+$/u;
const SINGLE_ASCII_LETTER = /^[a-z]$/;
/** Longer runs are hashes, base64 or minified code: never searched for, and costly to store. */
const MAX_TOKEN_LENGTH = 40;

// ICU picks the dictionary by script, so one locale-less segmenter serves Chinese, Japanese and Thai.
const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

interface Context {
  /**
   * English's stemmer, the one a site without language labels gets, reads no accented letter as a vowel
   * (`Größe` stays `größe` while `grosse` becomes `gross`): for it, a word is folded before stemming.
   */
  stem: ((word: string) => string) | null;
  /** The stemmer without the folding: an ASCII word has nothing to fold (the plain-word fast path). */
  plainStem: (word: string) => string;
  stop: ReadonlySet<string>;
  out: string[];
}

/**
 * Accents are often omitted when typing a query (`configuracion`), so Latin-script terms are folded; ß
 * as ss, as a keyboard without ß types it (`gross`, `schliessen`).
 */
const fold = (term: string): string =>
  LATIN_WITH_DIACRITICS.test(term)
    ? term
        .normalize('NFD')
        .replace(/\p{Mn}/gu, '')
        .replace(/ß/g, 'ss')
    : ARABIC_OR_HEBREW.test(term)
      ? term.replace(VOWEL_MARKS, '')
      : term;
/**
 * Arabic and Hebrew are mostly written without their vowel marks (harakat, niqqud), but docs add some
 * (يُعاد, תְּמִיכָה); a reader types يعاد, so the marks and the Arabic tatweel (ـ) are dropped.
 */
const ARABIC_OR_HEBREW = /[\p{Script=Arabic}\p{Script=Hebrew}]/u;
const VOWEL_MARKS = /[\p{Mn}\u0640]/gu;

const foldingFirst = (stemmer: string, stem: (word: string) => string): ((word: string) => string) =>
  stemmer === 'english' ? (word) => stem(NON_ASCII.test(word) ? fold(word) : word) : stem;
const NON_ASCII = /[^ -~\s]/;

const emitWord = (word: string, ctx: Context): void => {
  if (word.length > MAX_TOKEN_LENGTH || SINGLE_ASCII_LETTER.test(word) || ctx.stop.has(word)) return;
  const stemmed = ctx.stem !== null && LETTERS_ONLY.test(word) ? ctx.stem(word) : word;
  ctx.out.push(fold(stemmed));
  // Korean attaches particles to nouns (에이전트를, 에이전트는) and nothing here removes them, so
  // overlapping character bigrams (as Lucene's CJK bigram filter does) let the shared stem match.
  if (word.length >= 3 && HANGUL.test(word)) {
    for (let i = 0; i + 2 <= word.length; i++) ctx.out.push(word.slice(i, i + 2));
  }
};

/**
 * A plain ASCII word, capitalised at most on its first letter (`Install`, `v2`, `the`): it has no
 * separator, camel-case boundary, possessive, accent or other script, so it is one word as it stands.
 * Most of any docs text is such words; the general path below costs several Unicode regular
 * expressions per word.
 */
const PLAIN_WORD = /^[A-Z]?[a-z0-9]*$/;
const ASCII_LETTERS = /^[a-z]+$/;

const emitPlainWord = (word: string, ctx: Context): void => {
  if (word.length > MAX_TOKEN_LENGTH || SINGLE_ASCII_LETTER.test(word) || ctx.stop.has(word)) return;
  // What emitWord does for such a word: stemmed when letters only; only a stemmer's output may need
  // folding (the word itself is ASCII).
  ctx.out.push(ctx.stem !== null && ASCII_LETTERS.test(word) ? fold(ctx.plainStem(word)) : word);
};

const emitRaw = (raw: string, ctx: Context): void => {
  if (PLAIN_WORD.test(raw)) {
    emitPlainWord(raw.toLowerCase(), ctx);
    return;
  }
  if (DICTIONARY_SCRIPT.test(raw)) {
    for (const segment of segmenter.segment(raw)) {
      if (!segment.isWordLike) continue;
      if (DICTIONARY_SCRIPT.test(segment.segment)) emitWord(segment.segment.toLowerCase(), ctx);
      else emitRaw(segment.segment, ctx);
    }
    return;
  }
  const token = raw.replace(/['’]s$/i, '');
  const parts: string[] = [];
  for (const piece of token.split(SEPARATORS)) {
    if (piece === '') continue;
    for (const part of piece.split(CAMEL_BOUNDARY)) if (part !== '') parts.push(part.toLowerCase());
  }
  for (const part of parts) emitWord(part, ctx);
  // The whole identifier too: an exact `retrievalPageSize` or `v1.2` in a query is a strong, rare
  // signal, while its parts keep recall for queries that spell it out in words. Letters only, it is
  // stemmed as a plain word is, since readers type it as one: "macOS" is asked as "macos", which
  // stems to "maco", and "WebSockets" as "websocket".
  if (parts.length > 1) {
    const whole = token.toLowerCase();
    if (whole.length <= MAX_TOKEN_LENGTH && !ctx.stop.has(whole))
      ctx.out.push(fold(ctx.stem !== null && LETTERS_ONLY.test(whole) ? ctx.stem(whole) : whole));
  }
};

/**
 * Text → index terms in reading order: NFKC-normalised, lowercased, identifiers split (and kept whole),
 * stop words dropped, stemmed with the named Snowball stemmer (null: no stemming, as for CJK).
 */
export const tokenize = (text: string, stemmer: string | null): string[] => {
  const ctx: Context = {
    stem: stemmer === null ? null : foldingFirst(stemmer, getStemmer(stemmer)),
    plainStem: stemmer === null ? (word) => word : getStemmer(stemmer),
    stop: stopWordsFor(stemmer),
    out: [],
  };
  for (const match of text.normalize('NFKC').matchAll(RAW_TOKEN)) emitRaw(match[0], ctx);
  return ctx.out;
};
