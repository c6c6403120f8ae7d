/**
 * A serialized index is stored in parts of `INDEX_PART_BYTES` (stored-index.ts says why). This module
 * is what both sides of a streamed build share: the build worker cuts its bytes into parts as it writes
 * them, the main thread stores each part as it arrives.
 */
export const INDEX_PART_BYTES = 2 * 1024 * 1024;

/** How many parts an index of `total` bytes is stored in. */
export const partCount = (total: number): number => Math.max(1, Math.ceil(total / INDEX_PART_BYTES));

/**
 * Cuts a serialized index written in any order, each byte exactly once (the writer's promise: only
 * the count of bytes is checked), into its parts, handing each
 * part on (`emit`) as soon as all its bytes are in. Only parts written to but not yet whole are held:
 * a build writing its postings a range of terms at a time holds a few parts, not the index.
 */
export class IndexPartCutter {
  private total = 0;
  private readonly open = new Map<number, { data: Uint8Array; filled: number }>();

  constructor(
    private readonly emit: (part: number, data: Uint8Array) => void,
    private readonly partBytes = INDEX_PART_BYTES,
  ) {}

  /** The index's size, before any write. */
  start(total: number): void {
    this.total = total;
  }

  write(offset: number, bytes: Uint8Array): void {
    if (offset < 0 || offset + bytes.byteLength > this.total)
      throw new Error(`index bytes ${offset}+${bytes.byteLength} fall outside its ${this.total} bytes`);
    for (let done = 0; done < bytes.byteLength; ) {
      const at = offset + done;
      const part = Math.floor(at / this.partBytes);
      const partStart = part * this.partBytes;
      const size = Math.min(this.partBytes, this.total - partStart);
      let entry = this.open.get(part);
      if (entry === undefined) {
        entry = { data: new Uint8Array(size), filled: 0 };
        this.open.set(part, entry);
      }
      const n = Math.min(bytes.byteLength - done, partStart + size - at);
      entry.data.set(bytes.subarray(done, done + n), at - partStart);
      entry.filled += n;
      done += n;
      if (entry.filled === size) {
        this.open.delete(part);
        this.emit(part, entry.data);
      }
    }
  }

  /** Parts written to but not whole: none once every byte is in. */
  get unfinished(): number {
    return this.open.size;
  }
}
