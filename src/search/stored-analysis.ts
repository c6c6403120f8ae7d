import { FNV_OFFSET, FNV_PRIME, sameUnits } from './index-tables.ts';

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const BACKSLASH = 0x5c;
const ZERO = 0x30;
const NINE = 0x39;
/** Longer numbers are left to JSON.parse: below 16 digits every integer is exact in a double. */
const MAX_DIGITS = 15;
/** Largest count or length read here (any integer JSON.parse would read exactly). */
const MAX_NUMBER = Number.MAX_SAFE_INTEGER;
/** Largest pair hash read here: a larger one is no 32-bit key of the pair table (JSON.parse's path keeps its quirks). */
const MAX_PAIR_HASH = 0x7fffffff;

/**
 * Reads storage's JSON text of a chunk's analysis (analyze.ts `AnalyzedChunk`, exactly as
 * `JSON.stringify` writes it: keys in order, no spaces, integer numbers, strings without escapes)
 * without JSON.parse. Parsing made a string of each of a chunk's terms and an array of each list for
 * every chunk, most of an index build's time and garbage; here a term is a range of the text with its
 * `wordHash`, computed while scanning, so the builder finds the term's id without a string made of it.
 *
 * `read` answers false for any other text (another analyzer version's, other spacing or key order,
 * escapes, fractions): the builder then takes the JSON.parse path, which reads it the same way.
 */
export class StoredAnalysisReader {
  /** The stemmer (`s`) of the last analysis read; the same string while it does not change. */
  stemmer: string | null = null;
  /** Field lengths (`l`): page title, headings, body. */
  lengths = new Float64Array(0);
  /** The terms of the title, the headings and the body, one after another; field f's end at `fieldEnds[f]`. */
  readonly fieldEnds = new Int32Array(3);
  termStarts = new Int32Array(0);
  termEnds = new Int32Array(0);
  termHashes = new Uint32Array(0);
  termCounts = new Float64Array(0);
  terms = 0;
  pairHashes = new Float64Array(0);
  pairCounts = new Float64Array(0);
  pairs = 0;
  private text = '';
  private at = 0;

  /** `version`: analyze.ts `ANALYZER_VERSION`, the only version read. */
  constructor(private readonly version: number) {}

  read(text: string): boolean {
    this.text = text;
    this.at = 0;
    this.terms = 0;
    this.pairs = 0;
    // No list in the text has more entries than half its length: the loops below never grow an array.
    this.reserve((text.length >> 1) + 4);
    if (!this.literal('{"v":') || this.readNumber() !== this.version) return false;
    if (!this.literal(',"s":') || !this.readStemmer()) return false;
    if (!this.literal(',"l":') || this.readNumbers(this.lengths, 0, MAX_NUMBER) !== 3) return false;
    if (!this.literal(',"t":') || !this.readTerms(0)) return false;
    if (!this.literal(',"h":') || !this.readTerms(1)) return false;
    if (!this.literal(',"b":') || !this.readTerms(2)) return false;
    if (!this.literal(',"p":[')) return false;
    this.pairs = this.readNumbers(this.pairHashes, 0, MAX_PAIR_HASH);
    if (this.pairs < 0 || !this.literal(',')) return false;
    if (this.readNumbers(this.pairCounts, 0, MAX_NUMBER) !== this.pairs) return false;
    return this.literal(']}') && this.at === text.length;
  }

  private reserve(size: number): void {
    if (this.termStarts.length >= size) return;
    this.lengths = new Float64Array(size);
    this.termStarts = new Int32Array(size);
    this.termEnds = new Int32Array(size);
    this.termHashes = new Uint32Array(size);
    this.termCounts = new Float64Array(size);
    this.pairHashes = new Float64Array(size);
    this.pairCounts = new Float64Array(size);
  }

  private readStemmer(): boolean {
    const { text } = this;
    if (text.charCodeAt(this.at) !== QUOTE) return this.literal('null') && this.keepStemmer(null);
    const start = this.at + 1;
    if (this.readString() < 0) return false;
    const end = this.at - 1;
    const same = this.stemmer !== null && sameUnits(this.stemmer, text, start, end);
    return same || this.keepStemmer(ownCopy(text, start, end));
  }

  private keepStemmer(stemmer: string | null): true {
    this.stemmer = stemmer;
    return true;
  }

  /** `[[terms…],[counts…]]` of field `f`, the same number of each. */
  private readTerms(f: number): boolean {
    if (!this.literal('[[')) return false;
    const first = this.terms;
    if (!this.literal(']')) {
      for (;;) {
        const start = this.at + 1;
        const hash = this.readString();
        if (hash < 0) return false;
        this.termStarts[this.terms] = start;
        this.termEnds[this.terms] = this.at - 1;
        this.termHashes[this.terms++] = hash;
        const unit = this.text.charCodeAt(this.at++);
        if (unit === CLOSE) break;
        if (unit !== COMMA) return false;
      }
    }
    this.fieldEnds[f] = this.terms;
    if (!this.literal(',')) return false;
    return this.readNumbers(this.termCounts, first, MAX_NUMBER) === this.terms && this.literal(']');
  }

  /**
   * `[n,…]`: non-negative integers as JSON writes them, each at most `max`, stored in `into` from
   * `from` on; the index past the last, or -1 for anything else (a sign, a fraction, an exponent,
   * leading zeros, too many digits).
   */
  private readNumbers(into: Float64Array, from: number, max: number): number {
    const { text } = this;
    let at = this.at;
    if (text.charCodeAt(at++) !== OPEN) return -1;
    let n = from;
    if (text.charCodeAt(at) === CLOSE) {
      this.at = at + 1;
      return n;
    }
    for (;;) {
      const start = at;
      let unit = text.charCodeAt(at);
      if (!(unit >= ZERO && unit <= NINE)) return -1;
      let value = unit - ZERO;
      unit = text.charCodeAt(++at);
      if (value === 0 && unit >= ZERO && unit <= NINE) return -1;
      while (unit >= ZERO && unit <= NINE) {
        value = value * 10 + (unit - ZERO);
        unit = text.charCodeAt(++at);
      }
      if (at - start > MAX_DIGITS || value > max) return -1;
      into[n++] = value;
      at++;
      if (unit === CLOSE) break;
      if (unit !== COMMA) return -1;
    }
    this.at = at;
    return n;
  }

  /** A single number (`readNumbers` without the brackets); -1 for anything else. */
  private readNumber(): number {
    const { text } = this;
    let at = this.at;
    let value = 0;
    for (let unit = text.charCodeAt(at); unit >= ZERO && unit <= NINE; unit = text.charCodeAt(++at)) {
      if (at > this.at && value === 0) return -1;
      value = value * 10 + (unit - ZERO);
    }
    if (at === this.at || at - this.at > MAX_DIGITS) return -1;
    this.at = at;
    return value;
  }

  /**
   * A string without escapes or control characters (anything JSON.parse would read otherwise, or
   * refuse), read to just past its closing quote; its `wordHash`, or -1.
   */
  private readString(): number {
    const { text } = this;
    let at = this.at;
    if (text.charCodeAt(at) !== QUOTE) return -1;
    let h = FNV_OFFSET;
    for (;;) {
      const unit = text.charCodeAt(++at);
      if (unit === QUOTE) break;
      // A backslash, a control character, or the text's end (NaN).
      if (unit === BACKSLASH || !(unit >= 0x20)) return -1;
      h = Math.imul(h ^ unit, FNV_PRIME);
    }
    this.at = at + 1;
    return h >>> 0;
  }

  private literal(expected: string): boolean {
    const { text, at } = this;
    for (let i = 0; i < expected.length; i++)
      if (text.charCodeAt(at + i) !== expected.charCodeAt(i)) return false;
    this.at = at + expected.length;
    return true;
  }
}

/**
 * `text.slice(start, end)` as a string of its own: V8 makes a longer slice a view that keeps all of
 * `text` alive, and a word outlives the analysis it was first read in by the whole build.
 */
export const ownCopy = (text: string, start: number, end: number): string =>
  text.slice(start, end).split('').join('');
