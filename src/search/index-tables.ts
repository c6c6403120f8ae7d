/**
 * The search index's lookup tables as typed arrays only: no JS object, string or Map per term, so an
 * index costs its bytes and nothing more, and a serialized one is usable as soon as its bytes are in
 * memory (views over them, no rebuilding).
 */
import fs from 'node:fs';
import { withinOneEditOfBytes } from './one-edit.ts';

/** Growable typed arrays: an index is collected without one JS object (or Map) per chunk. */
export class GrowableU32 {
  data: Uint32Array;
  size = 0;
  constructor(capacity: number) {
    this.data = new Uint32Array(Math.max(16, capacity));
  }
  push(value: number): void {
    if (this.size === this.data.length) this.data = grown(this.data, new Uint32Array(this.data.length * 2));
    this.data[this.size++] = value;
  }
  /** The filled part, copied to an array of its exact size (the spare capacity is released). */
  trimmed(): Uint32Array {
    return this.data.slice(0, this.size);
  }
}

export class GrowableF32 {
  data: Float32Array;
  size = 0;
  constructor(capacity: number) {
    this.data = new Float32Array(Math.max(16, capacity));
  }
  push(value: number): void {
    if (this.size === this.data.length) this.data = grown(this.data, new Float32Array(this.data.length * 2));
    this.data[this.size++] = value;
  }
  trimmed(): Float32Array {
    return this.data.slice(0, this.size);
  }
}

const RUN_BLOCK_BITS = 20;
const RUN_BLOCK = 1 << RUN_BLOCK_BITS;
const RUN_MASK = RUN_BLOCK - 1;
/** Term ids fill the low 30 bits of a run's first word, its field the top two. */
const FIELD_SHIFT = 30;
const TERM_MASK = (1 << FIELD_SHIFT) - 1;
/** Term ids a build can number: a site with a billion distinct terms would not fit in memory anyway. */
export const MAX_TERMS = 1 << FIELD_SHIFT;
/** A frequency byte saying the run's frequency is in `RawRuns.others` (anything but 0 to 254). */
const OTHER_TF = 255;

/**
 * An index build's raw (term, field, frequency) runs, 5 bytes each, in blocks of a million: no copy
 * when they grow, at most one block spare, and each block released once the build has read past it.
 * A run is held until `finish` while the postings it makes are filled, so its size is most of a large
 * build's peak: the field shares the term's word, and the frequency (a count, almost always small) is a
 * byte, with any other value kept exactly (as a 32-bit float, as postings weigh it) in a side map. A
 * large build spills its full blocks to a file (`spillTo`) and reads them back a block at a time.
 */
export class RawRuns {
  private readonly termBlocks: (Uint32Array | null)[] = [];
  private readonly tfBlocks: (Uint8Array | null)[] = [];
  private readonly others = new Map<number, number>();
  size = 0;
  /** Once `spillTo` was called: the file full blocks are written to, and how many are there. */
  private spill: { fd: number; file: string; blocks: number } | null = null;
  /** The spilled block read back last (reads are sequential: one block at a time is enough). */
  private loaded = { block: -1, terms: new Uint32Array(0), tfs: new Uint8Array(0) };

  /** `term` below `MAX_TERMS`, `field` 0 to 3. */
  push(term: number, tf: number, field: number): void {
    const block = this.size >>> RUN_BLOCK_BITS;
    if (block === this.termBlocks.length) {
      if (this.spill) this.writeFullBlocks();
      this.termBlocks.push(new Uint32Array(RUN_BLOCK));
      this.tfBlocks.push(new Uint8Array(RUN_BLOCK));
    }
    const at = this.size & RUN_MASK;
    (this.termBlocks[block] as Uint32Array)[at] = term | (field << FIELD_SHIFT);
    if (tf === (tf & 0xff) && tf !== OTHER_TF) {
      (this.tfBlocks[block] as Uint8Array)[at] = tf;
    } else {
      (this.tfBlocks[block] as Uint8Array)[at] = OTHER_TF;
      this.others.set(this.size, Math.fround(tf));
    }
    this.size++;
  }

  /** Bytes the runs take, in memory or spilled. */
  get bytes(): number {
    return this.size * RUN_BYTES;
  }

  get spilled(): boolean {
    return this.spill !== null;
  }

  /**
   * From now on, full blocks live in `file` (created, never overwritten) instead of memory, and reads
   * load them back one at a time: a large build's runs cost a file the size of its raw runs (5 bytes
   * each) instead of memory. `close` deletes the file.
   */
  spillTo(file: string): void {
    if (this.spill) throw new Error('RawRuns: already spilled');
    this.spill = { fd: fs.openSync(file, 'wx+', 0o600), file, blocks: 0 };
    this.writeFullBlocks();
  }

  /** Closes and deletes the spill file, if any; the runs cannot be read after. */
  close(): void {
    const spill = this.spill;
    if (!spill) return;
    this.spill = null;
    fs.closeSync(spill.fd);
    fs.rmSync(spill.file, { force: true });
  }

  private writeFullBlocks(): void {
    const spill = this.spill as NonNullable<typeof this.spill>;
    const full = this.size >>> RUN_BLOCK_BITS;
    for (; spill.blocks < full; spill.blocks++) {
      const terms = this.termBlocks[spill.blocks];
      const tfs = this.tfBlocks[spill.blocks];
      if (!terms || !tfs) throw new Error(`raw run block ${spill.blocks} was released before it was spilled`);
      const at = spill.blocks * RUN_BLOCK * RUN_BYTES;
      writeAll(spill.fd, new Uint8Array(terms.buffer, terms.byteOffset, terms.byteLength), at);
      writeAll(spill.fd, tfs, at + terms.byteLength);
      this.termBlocks[spill.blocks] = null;
      this.tfBlocks[spill.blocks] = null;
    }
  }

  private blockOf(block: number): { terms: Uint32Array; tfs: Uint8Array } {
    const terms = this.termBlocks[block];
    const tfs = this.tfBlocks[block];
    if (terms && tfs) return { terms, tfs };
    const spill = this.spill;
    if (!spill || block >= spill.blocks) throw new Error(`raw run block ${block} was released`);
    const loaded = this.loaded;
    if (loaded.block !== block) {
      if (loaded.terms.length === 0) {
        loaded.terms = new Uint32Array(RUN_BLOCK);
        loaded.tfs = new Uint8Array(RUN_BLOCK);
      }
      const at = block * RUN_BLOCK * RUN_BYTES;
      const termBytes = new Uint8Array(loaded.terms.buffer);
      readAll(spill.fd, termBytes, at);
      readAll(spill.fd, loaded.tfs, at + termBytes.byteLength);
      loaded.block = block;
    }
    return loaded;
  }

  /**
   * Calls `each` for the runs from `start` to `end` (exclusive), in order, with each run's term, its
   * frequency as a 32-bit float holds it, and its field.
   */
  read(start: number, end: number, each: (term: number, tf: number, field: number) => void): void {
    for (let i = start; i < end; ) {
      const block = i >>> RUN_BLOCK_BITS;
      const { terms, tfs } = this.blockOf(block);
      const stop = Math.min(end, (block + 1) << RUN_BLOCK_BITS);
      for (let at = i & RUN_MASK; i < stop; i++, at++) {
        const packed = terms[at] ?? 0;
        const tf = tfs[at] ?? 0;
        each(packed & TERM_MASK, tf === OTHER_TF ? (this.others.get(i) ?? 0) : tf, packed >>> FIELD_SHIFT);
      }
    }
  }

  /** Drops the blocks in memory that hold only runs before `index` (spilled ones stay readable). */
  releaseBefore(index: number): void {
    for (let block = index >>> RUN_BLOCK_BITS; block-- > 0 && this.termBlocks[block] !== null; ) {
      this.termBlocks[block] = null;
      this.tfBlocks[block] = null;
    }
  }
}

/** Bytes a run takes: its packed term and field, and its frequency byte. */
const RUN_BYTES = 5;

const writeAll = (fd: number, bytes: Uint8Array, position: number): void => {
  for (let done = 0; done < bytes.byteLength; )
    done += fs.writeSync(fd, bytes, done, bytes.byteLength - done, position + done);
};

const readAll = (fd: number, bytes: Uint8Array, position: number): void => {
  for (let done = 0; done < bytes.byteLength; ) {
    const n = fs.readSync(fd, bytes, done, bytes.byteLength - done, position + done);
    if (n === 0) throw new Error('raw run spill file ended early');
    done += n;
  }
};

const grown = <T extends Uint32Array | Float32Array | Uint8Array>(from: T, to: T): T => {
  to.set(from);
  return to;
};

/** A pair table's slots, every key empty (-1) and every value 0. */
const emptyPairSlots = (size: number): Int32Array => {
  const slots = new Int32Array(2 * size);
  for (let i = 0; i < slots.length; i += 2) slots[i] = -1;
  return slots;
};

/**
 * Pair hash → term id while an index is built, open addressing on typed arrays. Pairs outnumber words
 * several times over, and a JS Map of a few hundred thousand numbers costs more than the rest of the build.
 * A slot's key and value lie side by side: a lookup's probes read one cache line, not two.
 */
export class PairTable {
  private count = 0;

  /** Slot i's key (-1: empty) at 2i, its value at 2i + 1. */
  slots: Int32Array = emptyPairSlots(1 << 12);

  get(key: number): number | undefined {
    const { slots } = this;
    const mask = (slots.length >> 1) - 1;
    for (let i = key & mask; ; i = (i + 1) & mask) {
      const k = slots[2 * i];
      if (k === key) return slots[2 * i + 1];
      if (k === -1) return undefined;
    }
  }

  set(key: number, value: number): void {
    if ((this.count + 1) * 4 > this.slots.length) this.grow();
    const { slots } = this;
    const mask = (slots.length >> 1) - 1;
    let i = key & mask;
    while (slots[2 * i] !== -1 && slots[2 * i] !== key) i = (i + 1) & mask;
    if (slots[2 * i] === -1) this.count++;
    slots[2 * i] = key;
    slots[2 * i + 1] = value;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = emptyPairSlots(old.length);
    this.count = 0;
    for (let i = 0; i < old.length; i += 2) {
      const k = old[i] ?? -1;
      if (k !== -1) this.set(k, old[i + 1] ?? 0);
    }
  }
}

/** Where a 64-bit integer's low and high 32-bit halves lie in a Uint32Array over its bytes. */
const LOW_HALF = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1 ? 0 : 1;
const HIGH_HALF = 1 - LOW_HALF;

/**
 * The order of a stable sort of `keys`: one native sort of 64-bit integers, each a key above its
 * index, with no comparator and no array per entry.
 */
const stableOrder = (keys: Uint32Array): Uint32Array => {
  const packed = new BigUint64Array(keys.length);
  const halves = new Uint32Array(packed.buffer);
  for (let i = 0; i < keys.length; i++) {
    halves[2 * i + HIGH_HALF] = keys[i] ?? 0;
    halves[2 * i + LOW_HALF] = i;
  }
  packed.sort();
  const order = new Uint32Array(keys.length);
  for (let at = 0; at < order.length; at++) order[at] = halves[2 * at + LOW_HALF] ?? 0;
  return order;
};

/**
 * Pair hash → term id in a finished index: keys sorted, looked up by binary search. Half the bytes of a
 * hash table at its load factor (a query looks up a handful of pairs; a site has hundreds of thousands).
 */
export class PairLookup {
  constructor(
    readonly keys: Int32Array,
    readonly values: Uint32Array,
  ) {}

  /**
   * The table's entries sorted by key (as unsigned, order kept), natively. Keys are unique but for
   * ones no stored analysis holds (not 32-bit integers); those keep their slots' order, as the stable
   * sort of the slots this replaces did.
   */
  static fromTable(table: PairTable): PairLookup {
    const { slots } = table;
    let count = 0;
    for (let i = 0; i < slots.length; i += 2) if (slots[i] !== -1) count++;
    const unsigned = new Uint32Array(count);
    const slotValues = new Uint32Array(count);
    let n = 0;
    for (let i = 0; i < slots.length; i += 2) {
      const key = slots[i] ?? -1;
      if (key === -1) continue;
      unsigned[n] = key ^ 0x80000000;
      slotValues[n++] = slots[i + 1] ?? 0;
    }
    const order = stableOrder(unsigned);
    const keys = new Int32Array(count);
    const values = new Uint32Array(count);
    for (let at = 0; at < count; at++) {
      const entry = order[at] ?? 0;
      keys[at] = (unsigned[entry] ?? 0) ^ 0x80000000;
      values[at] = slotValues[entry] ?? 0;
    }
    return new PairLookup(keys, values);
  }

  get(key: number): number | undefined {
    const { keys } = this;
    let lo = 0;
    let hi = keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = keys[mid] ?? 0;
      if (k === key) return this.values[mid];
      if (k < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }
}

/** FNV-1a's offset basis and prime, for `wordHash` and readers that hash a word as they scan it. */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** FNV-1a over UTF-16 code units: the word table's slot hash. */
export const wordHash = (word: string): number => {
  let h = FNV_OFFSET;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
};

/** An index's words: word i is term `ids[i]` (ids ascending), and `hashes[i]` is its `wordHash`. */
export interface Vocabulary {
  words: readonly string[];
  ids: ArrayLike<number>;
  hashes: ArrayLike<number>;
}

/**
 * Word → term id while an index is built: open addressing on typed arrays over the words, probed by
 * `wordHash`. A stored analysis's terms are found by comparing their characters where they lie in its
 * text, with no string made of each: most are words seen before. Pairs share the term ids but are not
 * here: the word table is made from the words alone, without a pass over every term.
 */
export class WordIds {
  private slots: Int32Array = new Int32Array(1 << 12).fill(-1);
  private slotHashes: Uint32Array = new Uint32Array(1 << 12);
  private readonly words: string[] = [];
  private readonly ids = new GrowableU32(1024);
  private readonly hashes = new GrowableU32(1024);

  /** The term id of the word `text.slice(start, end)`, whose `wordHash` is `hash`; -1 when it has none. */
  find(text: string, start: number, end: number, hash: number): number {
    const { slots, slotHashes } = this;
    const mask = slots.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const word = slots[i] ?? -1;
      if (word === -1) return -1;
      if (slotHashes[i] === hash && sameUnits(this.words[word] ?? '', text, start, end))
        return this.ids.data[word] ?? -1;
    }
  }

  /** The term id of `word`; -1 when it has none. */
  get(word: string): number {
    return this.find(word, 0, word.length, wordHash(word));
  }

  /** Gives `word` (not yet here), whose `wordHash` is `hash`, the term id `id` (above every id given yet). */
  add(word: string, hash: number, id: number): void {
    if ((this.words.length + 1) * 2 > this.slots.length) this.grow();
    this.place(hash, this.words.length);
    this.words.push(word);
    this.ids.push(id);
    this.hashes.push(hash);
  }

  vocabulary(): Vocabulary {
    return { words: this.words, ids: this.ids.data, hashes: this.hashes.data };
  }

  private place(hash: number, word: number): void {
    const mask = this.slots.length - 1;
    let i = hash & mask;
    while (this.slots[i] !== -1) i = (i + 1) & mask;
    this.slots[i] = word;
    this.slotHashes[i] = hash;
  }

  private grow(): void {
    const size = this.slots.length * 2;
    this.slots = new Int32Array(size).fill(-1);
    this.slotHashes = new Uint32Array(size);
    const { words, hashes } = this;
    for (let word = 0; word < words.length; word++) this.place(hashes.data[word] ?? 0, word);
  }
}

/** Whether `word` is `text.slice(start, end)`. */
export const sameUnits = (word: string, text: string, start: number, end: number): boolean => {
  if (word.length !== end - start) return false;
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) !== text.charCodeAt(start + i)) return false;
  return true;
};

/** Typo matching looks words up by first UTF-16 unit and length (terms are at most 40 characters). */
const fuzzyKey = (first: number, length: number): number => first * 65_536 + length;

/** Shortest vocabulary word typo matching considers (shorter words have too many neighbours). */
const FUZZY_MIN_LENGTH = 4;

export interface WordTableArrays {
  /** Open-addressing slots: the word's term id, or -1. */
  slots: Int32Array;
  /** The word hash of each slot, compared before the word's bytes. */
  slotHashes: Uint32Array;
  /** Per term id (pairs included, with no bytes): where its UTF-8 bytes start in `bytes`. */
  offsets: Uint32Array;
  bytes: Uint8Array;
  /** Words of 4+ characters sorted by (first unit, length, id), and that key for each. */
  fuzzyKeys: Uint32Array;
  fuzzyIds: Uint32Array;
}

/**
 * Word → term id and term id → word, over the arrays of `WordTableArrays`. Pairs share the id space
 * (and postings) with words; they have no bytes here and are never shown, expanded or fuzzily matched.
 */
export class WordTable {
  constructor(readonly arrays: WordTableArrays) {}

  /** Builds the table for `words` (term id → word; '' for the ids of pairs). */
  static fromWords(words: readonly string[]): WordTable {
    const ids: number[] = [];
    words.forEach((word, id) => {
      if (word !== '') ids.push(id);
    });
    return WordTable.of(words.length, {
      words: ids.map((id) => words[id] ?? ''),
      ids,
      hashes: ids.map((id) => wordHash(words[id] ?? '')),
    });
  }

  /** Builds the table for `termCount` terms, of which the vocabulary's are words and the rest pairs. */
  static of(termCount: number, vocabulary: Vocabulary): WordTable {
    const { offsets, bytes } = encodeStrings(vocabulary.words, termCount, vocabulary.ids);
    const { words, ids, hashes } = vocabulary;
    const { slots, slotHashes } = hashSlots(words, hashes, { ids, withEmpty: false });
    return new WordTable({ slots, slotHashes, offsets, bytes, ...fuzzyBuckets(vocabulary) });
  }

  get(word: string): number | undefined {
    return findSlot(this.arrays, word);
  }

  /** The word of a term id; '' for a pair. */
  wordAt(id: number): string {
    return stringAt(this.arrays, id);
  }

  isPair(id: number): boolean {
    const { offsets } = this.arrays;
    return offsets[id] === offsets[id + 1];
  }

  /**
   * Ids of the words at most one edit from `word` (see `withinOneEdit`) that share its first letter
   * (typos rarely hit it), in bucket order. Compared with the stored bytes, without decoding them to strings.
   */
  oneEditNeighbours(word: string): number[] {
    const { fuzzyKeys, fuzzyIds, offsets, bytes } = this.arrays;
    const out: number[] = [];
    for (let length = word.length - 1; length <= word.length + 1; length++) {
      const key = fuzzyKey(word.charCodeAt(0), length);
      let lo = 0;
      let hi = fuzzyKeys.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((fuzzyKeys[mid] ?? 0) < key) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < fuzzyKeys.length && fuzzyKeys[i] === key; i++) {
        const id = fuzzyIds[i] ?? 0;
        if (withinOneEditOfBytes(word, bytes, offsets[id] ?? 0, offsets[id + 1] ?? 0)) out.push(id);
      }
    }
    return out;
  }
}

/**
 * The words of `FUZZY_MIN_LENGTH` or more units sorted by `fuzzyKey`, ids ascending within a key (a
 * stable sort of them in id order). Keys fit 32 bits unless a word has 65,536 units or more: only then
 * is the sort a comparison sort.
 */
const fuzzyBuckets = ({ words, ids }: Vocabulary): { fuzzyKeys: Uint32Array; fuzzyIds: Uint32Array } => {
  let count = 0;
  for (const word of words) if (word.length >= FUZZY_MIN_LENGTH) count++;
  const keys = new Float64Array(count);
  const keyIds = new Uint32Array(count);
  let n = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    if (word.length < FUZZY_MIN_LENGTH) continue;
    keys[n] = fuzzyKey(word.charCodeAt(0), word.length);
    keyIds[n++] = ids[i] ?? 0;
  }
  const order = keys.every((key) => key < 2 ** 32)
    ? stableOrder(Uint32Array.from(keys))
    : Uint32Array.from([...keys.keys()].sort((a, b) => (keys[a] ?? 0) - (keys[b] ?? 0) || a - b));
  const fuzzyKeys = new Uint32Array(count);
  const fuzzyIds = new Uint32Array(count);
  for (let at = 0; at < count; at++) {
    const entry = order[at] ?? 0;
    fuzzyKeys[at] = keys[entry] ?? 0;
    fuzzyIds[at] = keyIds[entry] ?? 0;
  }
  return { fuzzyKeys, fuzzyIds };
};

export interface StringTableArrays {
  /** Where each string's UTF-8 bytes start in `bytes` (one more entry than strings). */
  offsets: Uint32Array;
  bytes: Uint8Array;
  /** Open-addressing slots: the string's number, or -1 (empty arrays: no lookup by string). */
  slots: Int32Array;
  slotHashes: Uint32Array;
}

/**
 * Numbered strings (page paths, titles, page keys) as UTF-8 bytes: a string is decoded when it is
 * asked for, and a loaded index parses none of them (a large site has tens of thousands, whose parsing
 * held the main thread for tens of milliseconds and filled the heap). With `lookup`, also string →
 * number, by a hash table over the bytes.
 */
export class StringTable {
  constructor(readonly arrays: StringTableArrays) {}

  static of(strings: readonly string[], options: { lookup?: boolean } = {}): StringTable {
    const { offsets, bytes } = encodeStrings(strings, strings.length);
    const { slots, slotHashes } = options.lookup
      ? hashSlots(strings, strings.map(wordHash), { withEmpty: true })
      : { slots: new Int32Array(0), slotHashes: new Uint32Array(0) };
    return new StringTable({ offsets, bytes, slots, slotHashes });
  }

  get length(): number {
    return this.arrays.offsets.length - 1;
  }

  at(i: number): string {
    return stringAt(this.arrays, i);
  }

  /** The number of `value` (the first, if it repeats); undefined when absent or the table has no lookup. */
  get(value: string): number | undefined {
    return this.arrays.slots.length === 0 ? undefined : findSlot(this.arrays, value);
  }

  /** Every string, in order (tests and small tables). */
  all(): string[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }
}

/**
 * The UTF-8 bytes of `count` entries end to end, and where each starts (one more offset than
 * entries): entry `ids[i]` is `strings[i]` (ids ascending; all of them in order without `ids`), the
 * others have no bytes. Measured, then written into one array of exactly their size, without an array
 * per string; the bytes `TextEncoder` makes (a lone surrogate as U+FFFD).
 */
const encodeStrings = (
  strings: readonly string[],
  count: number,
  ids?: ArrayLike<number>,
): { offsets: Uint32Array; bytes: Uint8Array } => {
  const offsets = new Uint32Array(count + 1);
  let total = 0;
  let last = -1;
  for (let i = 0; i < strings.length; i++) {
    const id = ids ? (ids[i] ?? 0) : i;
    offsets.fill(total, last + 1, id + 1);
    total += Buffer.byteLength(strings[i] ?? '', 'utf8');
    last = id;
  }
  offsets.fill(total, last + 1, count + 1);
  const bytes = new Uint8Array(total);
  const writer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < strings.length; i++) {
    const value = strings[i] ?? '';
    if (value !== '') writer.write(value, offsets[ids ? (ids[i] ?? 0) : i] ?? 0, 'utf8');
  }
  return { offsets, bytes };
};

/**
 * Open-addressing slots (at most half full) holding the number of each string (its id, when the
 * strings have ids), the empty one only `withEmpty` (a word table's pairs have no word).
 */
const hashSlots = (
  strings: readonly string[],
  hashes: ArrayLike<number>,
  { ids, withEmpty }: { ids?: ArrayLike<number>; withEmpty: boolean },
): { slots: Int32Array; slotHashes: Uint32Array } => {
  let kept = 0;
  for (const value of strings) if (withEmpty || value !== '') kept++;
  let size = 16;
  while (size < kept * 2) size *= 2;
  const slots = new Int32Array(size).fill(-1);
  const slotHashes = new Uint32Array(size);
  const mask = size - 1;
  for (let k = 0; k < strings.length; k++) {
    if (!withEmpty && strings[k] === '') continue;
    const h = hashes[k] ?? 0;
    let i = h & mask;
    while (slots[i] !== -1) i = (i + 1) & mask;
    slots[i] = ids ? (ids[k] ?? 0) : k;
    slotHashes[i] = h;
  }
  return { slots, slotHashes };
};

/** The number of `value` in the slots, compared by hash, then by its UTF-8 bytes. */
const findSlot = (
  { slots, slotHashes, offsets, bytes }: StringTableArrays,
  value: string,
): number | undefined => {
  const h = wordHash(value);
  const mask = slots.length - 1;
  let encoded: Buffer | undefined;
  for (let i = h & mask; ; i = (i + 1) & mask) {
    const id = slots[i] ?? -1;
    if (id === -1) return undefined;
    if (slotHashes[i] !== h) continue;
    encoded ??= Buffer.from(value, 'utf8');
    const start = offsets[id] ?? 0;
    const end = offsets[id + 1] ?? 0;
    if (end - start === encoded.length && encoded.equals(bytes.subarray(start, end))) return id;
  }
};

/** String number `i`, decoded from its bytes ('' when it has none). */
const stringAt = ({ offsets, bytes }: { offsets: Uint32Array; bytes: Uint8Array }, i: number): string => {
  const start = offsets[i] ?? 0;
  const end = offsets[i + 1] ?? 0;
  return end <= start ? '' : Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString();
};
