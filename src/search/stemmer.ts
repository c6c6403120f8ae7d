import { createRequire } from 'node:module';

// Loaded through `require`: an ESM import of this CommonJS package runs Node's export scanner over its
// 860 KB, which cost 100–450 ms in every process and worker thread that analyzes text (measured on the
// index build worker's start); `require` takes about 100 ms.
const snowball = createRequire(import.meta.url)('snowball-stemmers') as {
  newStemmer(name: string): { stem(word: string): string };
};

/**
 * Language label → Snowball algorithm. Labels come from a site's config (`es`, `pt-BR`, `zh-Hans`…),
 * so only the primary subtag matters; full English names are accepted too because some configs use them.
 */
const ALGORITHM_BY_LANGUAGE: Record<string, string> = {
  ar: 'arabic',
  hy: 'armenian',
  eu: 'basque',
  ca: 'catalan',
  cs: 'czech',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  hu: 'hungarian',
  it: 'italian',
  ga: 'irish',
  no: 'norwegian',
  nb: 'norwegian',
  nn: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  es: 'spanish',
  sl: 'slovene',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
};

/** Languages written without spaces or with rich morphology Snowball does not cover: no stemming. */
const UNSTEMMED = new Set([
  'zh',
  'ja',
  'ko',
  'th',
  'lo',
  'km',
  'my',
  'vi',
  'he',
  'hi',
  'id',
  'uk',
  'pl',
  'el',
]);

/**
 * The stemmer name for a language label: null/empty means the site did not say, and most documentation
 * is English, so English. An unknown label gets no stemming: a wrong-language stemmer mangles words.
 */
export const stemmerNameFor = (language: string | null | undefined): string | null => {
  if (language === null || language === undefined || language.trim() === '') return 'english';
  const lower = language.trim().toLowerCase();
  const algorithms = new Set(Object.values(ALGORITHM_BY_LANGUAGE));
  if (algorithms.has(lower)) return lower;
  const primary = lower.split(/[-_]/)[0] ?? lower;
  if (UNSTEMMED.has(primary)) return null;
  // Own keys only: a label such as `constructor` must not find Object.prototype's.
  return Object.hasOwn(ALGORITHM_BY_LANGUAGE, primary) ? (ALGORITHM_BY_LANGUAGE[primary] ?? null) : null;
};

/** Memoised stemmers: Snowball is cheap per call, but words repeat a lot across a site. */
const CACHE_LIMIT = 100_000;
const stemmers = new Map<string, (word: string) => string>();

export const getStemmer = (name: string): ((word: string) => string) => {
  let stem = stemmers.get(name);
  if (stem) return stem;
  const stemmer = snowball.newStemmer(name);
  const memo = new Map<string, string>();
  stem = (word: string): string => {
    let out = memo.get(word);
    if (out === undefined) {
      out = stemmer.stem(word);
      // Bounded so a long-running server ingesting many sites does not grow without limit.
      if (memo.size >= CACHE_LIMIT) memo.clear();
      memo.set(word, out);
    }
    return out;
  };
  stemmers.set(name, stem);
  return stem;
};
