import { sql } from 'kysely';
import type { Storage } from '../storage/database.ts';
import { formatOf, INDEX_FORMAT } from './index-codec.ts';
import { INDEX_PART_BYTES, partCount } from './index-parts.ts';
import { readPartsInWorker } from './stored-index-reader.ts';
import { yieldToIo } from './yield-to-io.ts';

/*
 * A site's serialized index in the database (migration 0014), beside its chunks, so every node of a
 * PostgreSQL deployment loads what one node built. Stored in parts of `INDEX_PART_BYTES`
 * (index-parts.ts): PostgreSQL sends binary as hex text, and one string for a large site's index would
 * pass V8's string limit; a part at a time also keeps a synchronous SQLite read to a few milliseconds,
 * the event loop free between parts.
 */

/**
 * Stores the serialized index (its pieces, as encoded) as the site's index for `generation`, replacing
 * any other generation's, unless the site has moved past that generation (then nothing is written and
 * false is returned).
 *
 * A large site's index is hundreds of megabytes: written in one transaction it would hold the event
 * loop (SQLite writes synchronously) and the database's write lock for seconds. So parts 1 to n are
 * written a transaction each, with the event loop free between them, and part 0 last, in a short
 * transaction that checks the generation: an index without its part 0 is not one yet (readers take it
 * for missing), so part 0 publishes it. Other generations' parts are deleted after that, again a part at
 * a time (SQLite frees a row's 2 MB page by page; and updating a column of such a row rewrites it whole,
 * which is why publishing is an insert). A node that raced this one to the same generation writes the
 * same bytes: its parts are kept. A write that died half-way leaves parts without part 0, which the next
 * write reuses. Parts are copied out of the pieces one at a time, so writing costs 2 MB, not the index
 * again.
 */
export async function writeStoredIndex(
  storage: Storage,
  siteId: string,
  generation: number,
  pieces: readonly Uint8Array[],
): Promise<boolean> {
  const total = pieces.reduce((n, p) => n + p.byteLength, 0);
  const parts = partCount(total);
  const partData = (part: number): Uint8Array => {
    const start = part * INDEX_PART_BYTES;
    const data = new Uint8Array(Math.min(INDEX_PART_BYTES, total - start));
    let offset = 0;
    for (const piece of pieces) {
      const from = Math.max(0, start - offset);
      const to = Math.min(piece.byteLength, start + data.byteLength - offset);
      if (from < to) data.set(piece.subarray(from, to), offset + from - start);
      offset += piece.byteLength;
      if (offset >= start + data.byteLength) break;
    }
    return data;
  };
  async function* inOrder() {
    for (let part = 1; part < parts; part++) yield { part, data: partData(part) };
    yield { part: 0, data: partData(0) };
  }
  return writeStoredIndexParts(storage, siteId, generation, parts, inOrder());
}

/**
 * `writeStoredIndex` for parts that arrive one at a time, in any order (a build streaming its index,
 * build-site-index.ts): each is stored as it comes, part 0 held back and written last, as above. Stops
 * reading `source` (false, nothing published) when the site has already moved past `generation`.
 */
export async function writeStoredIndexParts(
  storage: Storage,
  siteId: string,
  generation: number,
  parts: number,
  source: AsyncIterable<{ part: number; data: Uint8Array }>,
): Promise<boolean> {
  const current = async (db: Storage['db']) =>
    (await db.selectFrom('sites').select('index_generation').where('id', '=', siteId).executeTakeFirst())
      ?.index_generation === generation;
  if (!(await current(storage.db))) return false;
  // This generation's parts of another format (written by another version) share the primary key.
  await deletePartsOneByOne(storage, siteId, (p) => p.generation === generation && p.format !== INDEX_FORMAT);
  const insert = (db: Storage['db'], part: number, data: Uint8Array) =>
    db
      .insertInto('search_indexes')
      .values({ site_id: siteId, generation, format: INDEX_FORMAT, part, parts, data })
      .onConflict((oc) => oc.doNothing())
      .execute();
  let first: Uint8Array | null = null;
  const seen = new Set<number>();
  for await (const { part, data } of source) {
    if (part < 0 || part >= parts || seen.has(part))
      throw new Error(`index part ${part} of ${parts} is not new`);
    seen.add(part);
    if (part === 0) {
      first = data;
      continue;
    }
    await insert(storage.db, part, data);
    await yieldToIo();
  }
  const publish = first;
  if (publish === null || seen.size !== parts)
    throw new Error(`${seen.size} of ${parts} index parts arrived`);
  const published = await storage.db.transaction().execute(async (trx) => {
    if (!(await current(trx))) return false;
    await insert(trx, 0, publish);
    return true;
  });
  if (published)
    await deletePartsOneByOne(
      storage,
      siteId,
      (p) => p.generation !== generation || p.format !== INDEX_FORMAT || p.part >= parts,
    );
  return published;
}

/** Deletes the site's stored parts that `which` picks, a part per statement, the event loop free between. */
async function deletePartsOneByOne(
  storage: Storage,
  siteId: string,
  which: (part: { generation: number; format: number; part: number }) => boolean,
): Promise<void> {
  const rows = await storage.db
    .selectFrom('search_indexes')
    .select(['generation', 'format', 'part'])
    .where('site_id', '=', siteId)
    .execute();
  for (const row of rows.filter(which)) {
    await storage.db
      .deleteFrom('search_indexes')
      .where('site_id', '=', siteId)
      .where('generation', '=', row.generation)
      .where('format', '=', row.format)
      .where('part', '=', row.part)
      .execute();
    await yieldToIo();
  }
}

interface StoredPart {
  part: number;
  size: number;
}

/** The parts of the site's stored index for `generation`, or why they are not one usable index. */
export async function storedIndexParts(
  storage: Storage,
  siteId: string,
  generation: number,
): Promise<{ parts: StoredPart[] } | { unusable: 'missing' | 'format' | 'damaged'; detail?: string }> {
  const size = storage.dialect === 'postgres' ? sql<number>`octet_length(data)` : sql<number>`length(data)`;
  const parts = await storage.db
    .selectFrom('search_indexes')
    .select(['part', 'parts', 'format', size.as('size')])
    .where('site_id', '=', siteId)
    .where('generation', '=', generation)
    .orderBy('part')
    .execute();
  // Without part 0, a write in progress (or one that died): not an index yet.
  if (parts[0]?.part !== 0) return { unusable: 'missing' };
  const other = parts.find((p) => p.format !== INDEX_FORMAT);
  if (other)
    return { unusable: 'format', detail: `format ${other.format}, this version reads ${INDEX_FORMAT}` };
  const expected = parts[0]?.parts ?? 0;
  if (parts.length !== expected || parts.some((p, i) => p.part !== i || p.parts !== expected))
    return { unusable: 'damaged', detail: `${parts.length} of ${expected} parts` };
  return { parts: parts.map((p) => ({ part: p.part, size: Number(p.size) })) };
}

export type StoredIndexRead =
  | { bytes: Uint8Array }
  /** `missing`: none for this generation; `format`/`damaged`: one that cannot be read (rebuild it). */
  | { unusable: 'missing' | 'format' | 'damaged'; detail?: string };

/**
 * Smallest stored index that a worker thread reads from a SQLite file: starting one costs about 40 ms,
 * while a few parts read on the main thread cost a few milliseconds (a 100-page site's index is 200 KB).
 */
export const WORKER_READ_MIN_BYTES = 4 * INDEX_PART_BYTES;

/**
 * The site's stored index for `generation`, read a part at a time into one fresh, aligned buffer (the
 * codec makes views over it, no further copy). From a SQLite file, a worker thread reads one of
 * `WORKER_READ_MIN_BYTES` or more (stored-index-reader.ts); otherwise, and from PostgreSQL (whose reads
 * do not block), the event loop is free between parts.
 */
export async function readStoredIndex(
  storage: Storage,
  siteId: string,
  generation: number,
  options: { workerFromBytes?: number } = {},
): Promise<StoredIndexRead> {
  const state = await storedIndexParts(storage, siteId, generation);
  if ('unusable' in state) return state;
  const { parts } = state;
  const sqlite = storage.sqlite;
  const total = parts.reduce((sum, p) => sum + p.size, 0);
  if (sqlite && !sqlite.memory && total >= (options.workerFromBytes ?? WORKER_READ_MIN_BYTES)) {
    const read = await readPartsInWorker({
      file: sqlite.name,
      siteId,
      generation,
      sizes: parts.map((p) => p.size),
    });
    if ('damaged' in read) return { unusable: 'damaged', detail: read.damaged };
    return formatOf(read.bytes) === INDEX_FORMAT ? read : { unusable: 'damaged', detail: 'bad header' };
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const { part } of parts) {
    await yieldToIo();
    const row = await storage.db
      .selectFrom('search_indexes')
      .select('data')
      .where('site_id', '=', siteId)
      .where('generation', '=', generation)
      .where('part', '=', part)
      .executeTakeFirst();
    if (!row || at + row.data.byteLength > total)
      return { unusable: 'damaged', detail: `part ${part} changed` };
    bytes.set(row.data, at);
    at += row.data.byteLength;
  }
  if (at !== total || formatOf(bytes) !== INDEX_FORMAT) return { unusable: 'damaged', detail: 'bad header' };
  return { bytes };
}
