import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import type { Storage } from '../storage/database.ts';
import { IdleWorker } from '../workers/idle-worker.ts';
import { ANALYZER_VERSION } from './analyze.ts';
import type { BuildChunk, BuildReply, BuildRequest } from './index-build-worker.ts';
import { DEFAULT_RANKING } from './search-index.ts';
import { storedIndexParts, writeStoredIndexParts } from './stored-index.ts';
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
  return withReadSite(storage, siteId, async (build, generation) => ({
    generation,
    pieces: await build.finish(),
  }));
}

/**
 * Builds and stores the site's index for its current generation (after an ingestion, say), streamed:
 * the build worker fills the postings a range of terms at a time and hands over each stored part as
 * soon as it is whole, and a large site's runs wait in a temporary file, so neither thread ever holds
 * the whole index (a 100,000-page site's is over a gigabyte). The stored bytes are the same as
 * `buildSiteIndex`'s. Null: no such site; `published` false: the site moved on meanwhile (the
 * ingestion that moved it stores its own).
 */
export async function storeSiteIndex(
  storage: Storage,
  siteId: string,
): Promise<{ generation: number; published: boolean } | null> {
  return withReadSite(storage, siteId, async (build, generation) => ({
    generation,
    published: await build.finishInto(storage, siteId, generation),
  }));
}

/**
 * Runs `then` on a build that has read every chunk of one generation of the site: reads again (a new
 * build) while ingestions commit between the reads.
 */
async function withReadSite<T>(
  storage: Storage,
  siteId: string,
  then: (build: IndexBuild, generation: number) => Promise<T>,
): Promise<T | null> {
  for (let attempt = 1; ; attempt++) {
    const before = await generationOf(storage, siteId);
    if (before === null) return null;
    const build = new IndexBuild();
    try {
      await build.read(storage, siteId);
      const after = await generationOf(storage, siteId);
      if (after === null) return null;
      if (after === before) return await then(build, before);
    } finally {
      await build.close();
    }
    if (attempt === MAX_READ_ATTEMPTS)
      throw new Error(`site ${siteId} changed ${attempt} times while its index was built; try again later`);
  }
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

/**
 * Raw runs a build keeps in memory before the rest go to a temporary file (about 13 million runs: the
 * shared corpora's largest site, crewai-docs, has about 3 million, so only sites of several thousand
 * pages spill).
 */
export const SPILL_RUNS_AFTER_BYTES = 64 * 1024 * 1024;
/** Postings (8 bytes each) a streamed build fills per pass over the runs. */
export const STREAM_PARTITION_BYTES = 128 * 1024 * 1024;
/** Stored parts (2 MB each) a streamed build sends ahead of the main thread's writes. */
const STREAM_WINDOW_PARTS = 4;

/** A build's spill folder: the prefix, the process id, then a token of its own. */
const SPILL_PREFIX = 'docent-index-';
/** Spill folders of this process's builds still running (a folder with this process's id is not always one). */
const ownSpills = new Set<string>();
let abandonedRemoved = false;

/**
 * Removes the spill folders in `dir` left by builds that ended without removing theirs (a process
 * killed during a build): a large site's is hundreds of megabytes. A folder is left when its process is
 * not running, or has this process's id but is none of its builds (a container restarts with the same
 * id and may keep its temporary folder). Each process does it before its first build.
 */
export function removeAbandonedSpills(dir = os.tmpdir()): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(SPILL_PREFIX)) continue;
    const pid = Number(name.slice(SPILL_PREFIX.length).split('-')[0]);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const folder = path.join(dir, name);
    if (pid === process.pid ? ownSpills.has(folder) : isRunning(pid)) continue;
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** One build in its worker thread: `read` the site's chunks into it, then `finish` or `finishInto`. */
class IndexBuild {
  private readonly worker = idleWorker.take() ?? new Worker(WORKER_URL, { execArgv: [] });
  private readonly replies: BuildReply[] = [];
  private wake: (() => void) | null = null;
  private exited: Error | null = null;
  private chunks = 0;
  /** Only a worker that answered every request is in a known state for the next build. */
  private settled = false;
  private spillDir: string | null = null;
  private readonly onMessage = (reply: BuildReply): void => {
    this.replies.push(reply);
    this.wake?.();
  };
  private readonly onError = (error: Error): void => {
    this.exited = error;
    this.wake?.();
  };
  private readonly onExit = (code: number): void => {
    this.exited ??= new Error(`the index build worker exited (${code})`);
    this.wake?.();
  };

  constructor() {
    this.worker.on('message', this.onMessage);
    this.worker.on('error', this.onError);
    this.worker.on('exit', this.onExit);
  }

  private async next(): Promise<BuildReply> {
    for (;;) {
      const reply = this.replies.shift();
      if (reply) {
        if (reply.type === 'error') throw new Error(`index build failed: ${reply.message}`);
        return reply;
      }
      if (this.exited) throw this.exited;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = null;
    }
  }

  private post(request: BuildRequest): void {
    this.worker.postMessage(request);
  }

  async read(storage: Storage, siteId: string): Promise<void> {
    const pages = await storage.db
      .selectFrom('pages')
      .select(['path', 'title', 'versions', 'languages'])
      .where('site_id', '=', siteId)
      .execute();
    if (!abandonedRemoved) {
      abandonedRemoved = true;
      removeAbandonedSpills();
    }
    // Made by the worker only if the build spills: a small site's build needs no writable disk.
    this.spillDir = path.join(os.tmpdir(), `${SPILL_PREFIX}${process.pid}-${randomUUID()}`);
    ownSpills.add(this.spillDir);
    this.post({
      type: 'start',
      params: DEFAULT_RANKING,
      analyzerVersion: ANALYZER_VERSION,
      pages: pages.map((p) => ({
        path: p.path,
        title: p.title,
        versions: JSON.parse(p.versions) as string[],
        languages: JSON.parse(p.languages) as string[],
      })),
      spill: { dir: this.spillDir, afterBytes: SPILL_RUNS_AFTER_BYTES },
    });
    let inFlight = 0;
    let after: { path: string; ord: number } | null = null;
    for (;;) {
      const rows = await chunkBatch(storage, siteId, after);
      if (rows.length === 0) break;
      this.chunks += rows.length;
      const last = rows[rows.length - 1];
      if (last) after = { path: last.page_path, ord: last.ord };
      this.post({ type: 'chunks', rows });
      inFlight++;
      while (inFlight >= BATCHES_IN_FLIGHT) {
        await this.next();
        inFlight--;
      }
      await yieldToIo();
    }
    while (inFlight > 0) {
      await this.next();
      inFlight--;
    }
  }

  /** The whole serialized index, in memory. */
  async finish(): Promise<Uint8Array[]> {
    this.post({ type: 'finish' });
    const done = await this.next();
    if (done.type !== 'done') throw new Error(`index build worker answered ${done.type}`);
    this.settled = true;
    return done.pieces;
  }

  /** Stores the index for `generation` part by part as the worker makes them (writeStoredIndexParts). */
  async finishInto(storage: Storage, siteId: string, generation: number): Promise<boolean> {
    this.post({
      type: 'finish',
      stream: { partitionBytes: STREAM_PARTITION_BYTES, window: STREAM_WINDOW_PARTS },
    });
    const announced = await this.next();
    if (announced.type !== 'parts') throw new Error(`index build worker answered ${announced.type}`);
    const count = announced.parts;
    const build = this;
    async function* parts() {
      for (let received = 0; received < count; received++) {
        const reply = await build.next();
        if (reply.type !== 'part') throw new Error(`index build worker answered ${reply.type}`);
        yield reply;
        // Asked for the next part: the previous one is stored.
        build.post({ type: 'written' });
      }
      const end = await build.next();
      if (end.type !== 'streamed') throw new Error(`index build worker answered ${end.type}`);
      build.settled = true;
    }
    return writeStoredIndexParts(storage, siteId, generation, count, parts());
  }

  async close(): Promise<void> {
    const { worker } = this;
    worker.off('message', this.onMessage);
    worker.off('error', this.onError);
    worker.off('exit', this.onExit);
    const keep = this.settled && this.exited === null && this.chunks <= WARM_WORKER_MAX_CHUNKS;
    try {
      if (!(keep && idleWorker.keep(worker))) await worker.terminate();
    } finally {
      const dir = this.spillDir;
      if (dir !== null) {
        fs.rmSync(dir, { recursive: true, force: true });
        ownSpills.delete(dir);
      }
    }
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
