import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import type { Storage } from '../storage/database.ts';
import { IdleWorker } from '../workers/idle-worker.ts';
import { ANALYZER_VERSION } from './analyze.ts';
import type { BuildChunk, BuildReply, BuildRequest } from './index-build-worker.ts';
import { DEFAULT_RANKING } from './search-index.ts';
import { storedIndexParts, writeStoredIndex } from './stored-index.ts';
import { yieldToIo } from './yield-to-io.ts';

/**
 * Chunks read and posted to the build worker at a time: one synchronous SQLite read of this many
 * chunks' analyses takes a few milliseconds, so the event loop never waits long behind it.
 */
const BUILD_BATCH = 1_000;
/** Batches posted ahead of the worker's acknowledgements: it never holds more than this many. */
const BATCHES_IN_FLIGHT = 2;
/** Reads started again when an ingestion commits while the chunks are being read. */
const MAX_READ_ATTEMPTS = 5;

const WORKER_URL = import.meta.url.endsWith('.js')
  ? new URL('./index-build-worker.js', import.meta.url)
  : new URL('./index-build-worker-boot.mjs', import.meta.url);

/** An analysis stored by the current analyzer starts so; any other needs the text to analyze again. */
const CURRENT_ANALYSIS = `{"v":${ANALYZER_VERSION},`;

export interface BuiltIndex {
  generation: number;
  /** The serialized index in pieces (index-codec.ts `encodeIndexPieces`). */
  pieces: Uint8Array[];
}

/**
 * Builds a site's serialized index from its stored chunks in a worker thread. The chunks are read in
 * batches outside any transaction, so other requests' queries are never queued behind a long read;
 * every write to a site's chunks bumps its generation in the same transaction, so a generation that is
 * the same before and after the reads proves they saw one version of the site. Null: no such site.
 */
export async function buildSiteIndex(storage: Storage, siteId: string): Promise<BuiltIndex | null> {
  for (let attempt = 1; ; attempt++) {
    const before = await generationOf(storage, siteId);
    if (before === null) return null;
    const pieces = await buildFromChunks(storage, siteId);
    const after = await generationOf(storage, siteId);
    if (after === null) return null;
    if (after === before) return { generation: before, pieces };
    if (attempt === MAX_READ_ATTEMPTS)
      throw new Error(`site ${siteId} changed ${attempt} times while its index was built; try again later`);
  }
}

/** Builds and stores the site's index for its current generation (after an ingestion, say). */
export async function storeSiteIndex(storage: Storage, siteId: string): Promise<BuiltIndex | null> {
  const built = await buildSiteIndex(storage, siteId);
  if (built !== null) await writeStoredIndex(storage, siteId, built.generation, built.pieces);
  return built;
}

async function generationOf(storage: Storage, siteId: string): Promise<number | null> {
  const site = await storage.db
    .selectFrom('sites')
    .select('index_generation')
    .where('id', '=', siteId)
    .executeTakeFirst();
  return site?.index_generation ?? null;
}

/**
 * A build worker kept after a small build, for the next one in this process: a re-ingestion of one
 * changed page spent half its time starting a worker and compiling the build again (measured on
 * mintlify-docs, 10,000 chunks: about 250 ms to start one from the TypeScript sources, and the cold
 * build code running about twice as slow as warm code). A large build's worker is not kept: its start
 * is small beside the build, and its heap is better returned at once.
 */
const WARM_WORKER_MAX_CHUNKS = 50_000;
/** How long a kept worker waits for another build before it ends. */
export const INDEX_BUILD_WORKER_IDLE_MS = 30_000;

const idleWorker = new IdleWorker(INDEX_BUILD_WORKER_IDLE_MS);

/** Ends the kept build worker now (a server shutting down; it would not keep the process alive anyway). */
export function closeIdleIndexBuildWorker(): Promise<void> {
  return idleWorker.close();
}

async function buildFromChunks(storage: Storage, siteId: string): Promise<Uint8Array[]> {
  const worker = idleWorker.take() ?? new Worker(WORKER_URL, { execArgv: [] });
  const replies: BuildReply[] = [];
  let wake: (() => void) | null = null;
  let exited: Error | null = null;
  const onMessage = (reply: BuildReply): void => {
    replies.push(reply);
    wake?.();
  };
  const onError = (error: Error): void => {
    exited = error;
    wake?.();
  };
  const onExit = (code: number): void => {
    exited ??= new Error(`the index build worker exited (${code})`);
    wake?.();
  };
  worker.on('message', onMessage);
  worker.on('error', onError);
  worker.on('exit', onExit);
  const next = async (): Promise<BuildReply> => {
    for (;;) {
      const reply = replies.shift();
      if (reply) {
        if (reply.type === 'error') throw new Error(`index build failed: ${reply.message}`);
        return reply;
      }
      if (exited) throw exited;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = null;
    }
  };
  const post = (request: BuildRequest): void => worker.postMessage(request);
  let reusable = false;
  try {
    const pages = await storage.db
      .selectFrom('pages')
      .select(['path', 'title', 'versions', 'languages'])
      .where('site_id', '=', siteId)
      .execute();
    post({
      type: 'start',
      params: DEFAULT_RANKING,
      analyzerVersion: ANALYZER_VERSION,
      pages: pages.map((p) => ({
        path: p.path,
        title: p.title,
        versions: JSON.parse(p.versions) as string[],
        languages: JSON.parse(p.languages) as string[],
      })),
    });
    let inFlight = 0;
    let chunks = 0;
    let after: { path: string; ord: number } | null = null;
    for (;;) {
      const rows = await chunkBatch(storage, siteId, after);
      if (rows.length === 0) break;
      chunks += rows.length;
      const last = rows[rows.length - 1];
      if (last) after = { path: last.page_path, ord: last.ord };
      post({ type: 'chunks', rows });
      inFlight++;
      while (inFlight >= BATCHES_IN_FLIGHT) {
        await next();
        inFlight--;
      }
      await yieldToIo();
    }
    while (inFlight > 0) {
      await next();
      inFlight--;
    }
    post({ type: 'finish' });
    const done = await next();
    if (done.type !== 'done') throw new Error(`index build worker answered ${done.type}`);
    // Only a worker that answered every request is in a known state for the next build.
    reusable = chunks <= WARM_WORKER_MAX_CHUNKS;
    return done.pieces;
  } finally {
    worker.off('message', onMessage);
    worker.off('error', onError);
    worker.off('exit', onExit);
    if (!(reusable && exited === null && idleWorker.keep(worker))) await worker.terminate();
  }
}

/** The next batch of chunks in (page, ord) order: the order the index numbers them in. */
async function chunkBatch(
  storage: Storage,
  siteId: string,
  after: { path: string; ord: number } | null,
): Promise<BuildChunk[]> {
  let query = storage.db
    .selectFrom('chunks')
    .select(['page_path', 'ord', 'analyzed'])
    .select((eb) => {
      // Text only for analyses of another analyzer version: the build analyzes those again.
      const unlessCurrent = (column: 'headings' | 'text') =>
        eb
          .case()
          .when(sql<boolean>`substr(analyzed, 1, ${CURRENT_ANALYSIS.length}) = ${CURRENT_ANALYSIS}`)
          .then(sql<string | null>`null`)
          .else(eb.ref(column))
          .end()
          .as(column);
      return [unlessCurrent('headings'), unlessCurrent('text')];
    })
    .where('site_id', '=', siteId);
  if (after !== null) {
    const { path, ord } = after;
    // A row-value comparison is a range of the (site, page, ord) key; its spelled-out `or` made SQLite
    // scan the site's keys from the first for every batch (20 s of reads on a 300,000-chunk site, not 3).
    query = query.where((eb) => eb(eb.refTuple('page_path', 'ord'), '>', eb.tuple(path, ord)));
  }
  return query.orderBy('page_path').orderBy('ord').limit(BUILD_BATCH).execute();
}

/**
 * After an ingestion: the site's index for its current generation is stored unless it already is (an
 * unchanged re-ingestion moves no generation and builds nothing). A failure here never fails the
 * ingestion: the first search builds the index instead; the reason is returned for the job's warnings.
 */
export async function ensureStoredIndex(storage: Storage, siteId: string): Promise<string | null> {
  try {
    const generation = await generationOf(storage, siteId);
    if (generation === null) return null;
    // Whole and of this format; anything else (another version's, a damaged write) is built again.
    if ('unusable' in (await storedIndexParts(storage, siteId, generation)))
      await storeSiteIndex(storage, siteId);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The thread id of the build worker kept for the next build, if one is (for tests). */
export const keptIndexBuildWorker = (): number | null => idleWorker.threadId;
