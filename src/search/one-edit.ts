/** True when `a` and `b` are at most one insertion, deletion, substitution or transposition apart. */
export const withinOneEdit = (a: string, b: string): boolean => {
  if (Math.abs(a.length - b.length) > 1) return false;
  // Words one edit apart (two letters or more each) share their first or their second letter, or have
  // one of them crossed (an edit at the start): most pairs a typo search compares stop here.
  if (a.length >= 2 && b.length >= 2) {
    const a0 = a.charCodeAt(0);
    const a1 = a.charCodeAt(1);
    const b0 = b.charCodeAt(0);
    const b1 = b.charCodeAt(1);
    if (a0 !== b0 && a1 !== b1 && a0 !== b1 && a1 !== b0) return false;
  }
  const units = scratchFor(b.length);
  for (let i = 0; i < b.length; i++) units[i] = b.charCodeAt(i);
  return withinOneEditOfUnits(a, units, b.length);
};

/**
 * `withinOneEdit(a, b)` for a `b` given as UTF-8 bytes `bytes[start, end)`, without decoding `b` to a
 * string: typo matching compares a query word with a few hundred vocabulary words per search, and
 * decoding each one was a quarter of the bytes a search allocated. `b`'s UTF-16 units are decoded into
 * a scratch array instead (the bytes are the word table's own, valid UTF-8 from `TextEncoder`).
 */
export const withinOneEditOfBytes = (a: string, bytes: Uint8Array, start: number, end: number): boolean => {
  const units = scratchFor(end - start);
  let lb = 0;
  for (let i = start; i < end; ) {
    const b0 = bytes[i] ?? 0;
    if (b0 < 0x80) {
      units[lb++] = b0;
      i += 1;
    } else if (b0 < 0xe0) {
      units[lb++] = ((b0 & 0x1f) << 6) | ((bytes[i + 1] ?? 0) & 0x3f);
      i += 2;
    } else if (b0 < 0xf0) {
      units[lb++] = ((b0 & 0x0f) << 12) | (((bytes[i + 1] ?? 0) & 0x3f) << 6) | ((bytes[i + 2] ?? 0) & 0x3f);
      i += 3;
    } else {
      const point =
        (((b0 & 0x07) << 18) |
          (((bytes[i + 1] ?? 0) & 0x3f) << 12) |
          (((bytes[i + 2] ?? 0) & 0x3f) << 6) |
          ((bytes[i + 3] ?? 0) & 0x3f)) -
        0x10000;
      units[lb++] = 0xd800 + (point >> 10);
      units[lb++] = 0xdc00 + (point & 0x3ff);
      i += 4;
    }
  }
  return withinOneEditOfUnits(a, units, lb);
};

/** `withinOneEdit(a, b)` for `b` as its first `lb` UTF-16 units. */
const withinOneEditOfUnits = (a: string, units: Int32Array, lb: number): boolean => {
  const la = a.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === units[i]) i++;
  if (i === la || i === lb) return true;
  if (la === lb) {
    if (sameFrom(a, units, lb, i + 1, i + 1)) return true;
    return (
      a.charCodeAt(i) === units[i + 1] &&
      a.charCodeAt(i + 1) === units[i] &&
      sameFrom(a, units, lb, i + 2, i + 2)
    );
  }
  return la > lb ? sameFrom(a, units, lb, i + 1, i) : sameFrom(a, units, lb, i, i + 1);
};

let scratch = new Int32Array(64);

/** The scratch array of UTF-16 units, at least `length` long (reused: nothing here keeps it). */
const scratchFor = (length: number): Int32Array => {
  if (scratch.length < length) scratch = new Int32Array(2 * length);
  return scratch;
};

/** `a.slice(ai) === b.slice(bi)` for `b` as units. */
const sameFrom = (a: string, units: Int32Array, lb: number, ai: number, bi: number): boolean => {
  if (a.length - ai !== lb - bi) return false;
  for (let k = 0; ai + k < a.length; k++) if (a.charCodeAt(ai + k) !== units[bi + k]) return false;
  return true;
};
