/**
 * The search index's lookup tables as typed arrays only: no JS object, string or Map per term, so an
 * index costs its bytes and nothing more, and a serialized one is usable as soon as its bytes are in
 * memory (views over them, no rebuilding).
 */
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

export class GrowableU8 {
  data: Uint8Array;
  size = 0;
  constructor(capacity: number) {
    this.data = new Uint8Array(Math.max(16, capacity));
  }
  push(value: number): void {
    if (this.size === this.data.length) this.data = grown(this.data, new Uint8Array(this.data.length * 2));
    this.data[this.size++] = value;
  }
  append(bytes: Uint8Array): void {
    while (this.size + bytes.length > this.data.length)
      this.data = grown(this.data, new Uint8Array(this.data.length * 2));
    this.data.set(bytes, this.size);
    this.size += bytes.length;
  }
  trimmed(): Uint8Array {
    return this.data.slice(0, this.size);
  }
}

const RUN_BLOCK_BITS = 20;
const RUN_BLOCK = 1 << RUN_BLOCK_BITS;
const RUN_MASK = RUN_BLOCK - 1;

/**
 * An index build's raw (term, frequency, field) runs, 9 bytes each, in blocks of a million: no copy
 * when they grow, at most one block spare, and each block released once the build has read past it.
 */
export class RawRuns {
  private readonly termBlocks: (Uint32Array | null)[] = [];
  private readonly tfBlocks: (Float32Array | null)[] = [];
  private readonly fieldBlocks: (Uint8Array | null)[] = [];
  size = 0;

  push(term: number, tf: number, field: number): void {
    const block = this.size >>> RUN_BLOCK_BITS;
    if (block === this.termBlocks.length) {
      this.termBlocks.push(new Uint32Array(RUN_BLOCK));
      this.tfBlocks.push(new Float32Array(RUN_BLOCK));
      this.fieldBlocks.push(new Uint8Array(RUN_BLOCK));
    }
    const at = this.size & RUN_MASK;
    (this.termBlocks[block] as Uint32Array)[at] = term;
    (this.tfBlocks[block] as Float32Array)[at] = tf;
    (this.fieldBlocks[block] as Uint8Array)[at] = field;
    this.size++;
  }

  /** Calls `each` for the runs from `start` to `end` (exclusive), in order. */
  read(start: number, end: number, each: (term: number, tf: number, field: number) => void): void {
    for (let i = start; i < end; i++) {
      const block = i >>> RUN_BLOCK_BITS;
      const at = i & RUN_MASK;
      each(
        this.termBlocks[block]?.[at] ?? 0,
        this.tfBlocks[block]?.[at] ?? 0,
        this.fieldBlocks[block]?.[at] ?? 0,
      );
    }
  }

  /** Drops the blocks that hold only runs before `index`. */
  releaseBefore(index: number): void {
    for (let block = 0; block < index >>> RUN_BLOCK_BITS; block++) {
      this.termBlocks[block] = null;
      this.tfBlocks[block] = null;
      this.fieldBlocks[block] = null;
    }
  }
}

const grown = <T extends Uint32Array | Float32Array | Uint8Array>(from: T, to: T): T => {
  to.set(from);
  return to;
};

/**
 * Pair hash → term id while an index is built, open addressing on typed arrays. Pairs outnumber words
 * several times over, and a JS Map of a few hundred thousand numbers costs more than the rest of the build.
 */
export class PairTable {
  private count = 0;

  keys: Int32Array = new Int32Array(1 << 12).fill(-1);
  values: Uint32Array = new Uint32Array(1 << 12);

  get(key: number): number | undefined {
    const mask = this.keys.length - 1;
    for (let i = key & mask; ; i = (i + 1) & mask) {
      const k = this.keys[i];
      if (k === key) return this.values[i];
      if (k === -1) return undefined;
    }
  }

  set(key: number, value: number): void {
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    let i = key & mask;
    while (this.keys[i] !== -1 && this.keys[i] !== key) i = (i + 1) & mask;
    if (this.keys[i] === -1) this.count++;
    this.keys[i] = key;
    this.values[i] = value;
  }

  private grow(): void {
    const keys = this.keys;
    const values = this.values;
    this.keys = new Int32Array(keys.length * 2).fill(-1);
    this.values = new Uint32Array(keys.length * 2);
    this.count = 0;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] ?? -1;
      if (k !== -1) this.set(k, values[i] ?? 0);
    }
  }
}

/**
 * Pair hash → term id in a finished index: keys sorted, looked up by binary search. Half the bytes of a
 * hash table at its load factor (a query looks up a handful of pairs; a site has hundreds of thousands).
 */
export class PairLookup {
  constructor(
    readonly keys: Int32Array,
    readonly values: Uint32Array,
  ) {}

  static fromTable(table: PairTable): PairLookup {
    const entries: [number, number][] = [];
    table.keys.forEach((key, i) => {
      if (key !== -1) entries.push([key, table.values[i] ?? 0]);
    });
    entries.sort((a, b) => a[0] - b[0]);
    return new PairLookup(
      Int32Array.from(entries, (e) => e[0]),
      Uint32Array.from(entries, (e) => e[1]),
    );
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

/** FNV-1a over UTF-16 code units: the word table's slot hash. */
const wordHash = (word: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  return h >>> 0;
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
    const { offsets, bytes } = encodeStrings(words, 8);
    const fuzzy: number[] = [];
    words.forEach((word, id) => {
      if (word.length >= FUZZY_MIN_LENGTH) fuzzy.push(id);
    });
    const { slots, slotHashes } = hashSlots(words, (word) => word !== '');
    const keyOf = (id: number): number => {
      const word = words[id] ?? '';
      return fuzzyKey(word.charCodeAt(0), word.length);
    };
    fuzzy.sort((a, b) => keyOf(a) - keyOf(b) || a - b);
    return new WordTable({
      slots,
      slotHashes,
      offsets,
      bytes,
      fuzzyKeys: Uint32Array.from(fuzzy, keyOf),
      fuzzyIds: Uint32Array.from(fuzzy),
    });
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
    const { offsets, bytes } = encodeStrings(strings, 16);
    const { slots, slotHashes } = options.lookup
      ? hashSlots(strings, () => true)
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

/** The strings' UTF-8 bytes end to end, and where each starts (one more offset than strings). */
const encodeStrings = (
  strings: readonly string[],
  bytesEach: number,
): { offsets: Uint32Array; bytes: Uint8Array } => {
  const encoder = new TextEncoder();
  const offsets = new Uint32Array(strings.length + 1);
  const bytes = new GrowableU8(strings.length * bytesEach);
  strings.forEach((value, i) => {
    bytes.append(encoder.encode(value));
    offsets[i + 1] = bytes.size;
  });
  return { offsets, bytes: bytes.trimmed() };
};

/** Open-addressing slots (at most half full) holding the number of each string `include` keeps. */
const hashSlots = (
  strings: readonly string[],
  include: (value: string) => boolean,
): { slots: Int32Array; slotHashes: Uint32Array } => {
  const kept = strings.filter(include).length;
  let size = 16;
  while (size < kept * 2) size *= 2;
  const slots = new Int32Array(size).fill(-1);
  const slotHashes = new Uint32Array(size);
  const mask = size - 1;
  strings.forEach((value, id) => {
    if (!include(value)) return;
    const h = wordHash(value);
    let i = h & mask;
    while (slots[i] !== -1) i = (i + 1) & mask;
    slots[i] = id;
    slotHashes[i] = h;
  });
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
