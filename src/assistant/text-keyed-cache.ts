/**
 * A bounded cache keyed by long texts (retrieved chunks) that arrive as fresh strings on every request.
 *
 * A `Map` keyed by such a string hashes all of it on every lookup (V8 keeps a string's hash on the string
 * object, and storage hands out new objects each time): about 2 ns a character, a few microseconds for
 * one chunk. Here a text is found by a fingerprint of its length and a few dozen of its characters, and
 * confirmed by comparing it with the stored text, which the engine does as a plain memory comparison.
 */

/** Characters sampled, evenly spaced, for the fingerprint (every character of a shorter text). */
const SAMPLES = 32;

export class TextKeyedCache<V> {
  private readonly buckets = new Map<number, { text: string; value: V }[]>();
  private entries = 0;

  /** `limit`: entries kept; the cache starts over when full (popular chunks come back within a request). */
  constructor(readonly limit: number) {}

  get size(): number {
    return this.entries;
  }

  get(text: string): V | undefined {
    const bucket = this.buckets.get(fingerprint(text));
    if (bucket === undefined) return undefined;
    for (const entry of bucket) if (entry.text === text) return entry.value;
    return undefined;
  }

  /** The cached value for `text`, made by `make` (and kept) when there is none. */
  getOrAdd(text: string, make: (text: string) => V): V {
    const key = fingerprint(text);
    let bucket = this.buckets.get(key);
    if (bucket !== undefined) for (const entry of bucket) if (entry.text === text) return entry.value;
    const value = make(text);
    if (this.entries >= this.limit) {
      this.buckets.clear();
      this.entries = 0;
      bucket = undefined;
    }
    if (bucket === undefined) {
      bucket = [];
      this.buckets.set(key, bucket);
    }
    bucket.push({ text, value });
    this.entries++;
    return value;
  }
}

/** Length and sampled characters, mixed FNV-1a style into a small integer (a Map key without hashing). */
export function fingerprint(text: string): number {
  const length = text.length;
  let h = Math.imul(2166136261 ^ length, 16777619);
  if (length <= SAMPLES) {
    for (let i = 0; i < length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  } else {
    const step = length / SAMPLES;
    for (let k = 0; k < SAMPLES; k++) h = Math.imul(h ^ text.charCodeAt(Math.floor(k * step)), 16777619);
    h = Math.imul(h ^ text.charCodeAt(length - 1), 16777619);
  }
  // A small integer (Smi) key: V8's Map hashes it without allocating.
  return h & 0x3fffffff;
}
