import { parentPort } from 'node:worker_threads';
import type { AnalyzedChunk } from './analyze.ts';
import { SearchIndexBuilder } from './index-builder.ts';
import { encodeIndexPieces } from './index-codec.ts';
import { IndexPartCutter, partCount } from './index-parts.ts';
import type { RankingParams } from './search-index.ts';
import type { IndexableChunk } from './types.ts';

/**
 * The index build, off the main thread: the main thread reads a site's stored chunks in batches
 * (build-site-index.ts) and posts them here; each batch is acknowledged once added, so at most a couple
 * of batches wait here at a time; `finish` answers with the serialized index, its arrays transferred.
 *
 * The worker starts without the analyzer (search-index.ts and the Snowball stemmers it loads took
 * most of its start): current stored analyses are read as they are, and only a chunk whose analysis
 * is stale or missing loads it.
 */
export type BuildRequest =
  | {
      type: 'start';
      params: RankingParams;
      /** analyze.ts `ANALYZER_VERSION`: the stored analyses read as they are. */
      analyzerVersion: number;
      pages: BuildPage[];
      /** Raw runs past `afterBytes` go to a file in `dir` (index-builder.ts `spillRunsAfter`). */
      spill?: { dir: string; afterBytes: number };
    }
  | { type: 'chunks'; rows: BuildChunk[] }
  /**
   * Without `stream`, answered by `done` with the whole index; with it, by the index's stored parts one
   * `part` at a time (no more than `window` unacknowledged by `written`), then `streamed`.
   */
  | { type: 'finish'; stream?: { partitionBytes: number; window: number } }
  /** The main thread stored a part: one more may be sent. */
  | { type: 'written' };

export type BuildReply =
  | { type: 'added'; chunks: number }
  | { type: 'done'; pieces: Uint8Array[] }
  | { type: 'parts'; parts: number }
  | { type: 'part'; part: number; data: Uint8Array }
  | { type: 'streamed' }
  | { type: 'error'; message: string };

export interface BuildPage {
  path: string;
  title: string;
  versions: string[];
  languages: string[];
}

export interface BuildChunk {
  page_path: string;
  ord: number;
  analyzed: string;
  /** Sent only when the stored analysis is not the current analyzer's (the build analyzes the text). */
  headings: string | null;
  text: string | null;
}

const port = parentPort;
if (!port) throw new Error('index-build-worker runs as a worker thread');

let builder: SearchIndexBuilder | null = null;
const pages = new Map<string, BuildPage>();
let analysisOf: ((chunk: IndexableChunk) => AnalyzedChunk) | null = null;

const reply = (message: BuildReply, transfer: ArrayBuffer[] = []): void =>
  port.postMessage(message, transfer);

const handle = async (message: BuildRequest): Promise<void> => {
  if (message.type === 'written') return;
  if (message.type === 'start') {
    // A build that ended early (its main thread stopped reading) left nothing this one should wait on.
    unwritten = 0;
    onWritten = null;
    builder = new SearchIndexBuilder(message.params, message.analyzerVersion);
    if (message.spill) builder.spillRunsAfter(message.spill.dir, message.spill.afterBytes);
    pages.clear();
    for (const page of message.pages) pages.set(page.path, page);
    return;
  }
  if (!builder) throw new Error(`index build worker: ${message.type} before start`);
  if (message.type === 'chunks') {
    for (const row of message.rows) {
      const page = pages.get(row.page_path);
      // The foreign key keeps every chunk's page; a missing one would be a damaged database.
      if (!page) continue;
      const chunk: IndexableChunk = {
        id: builder.chunks,
        pagePath: row.page_path,
        pageTitle: page.title,
        headings: row.headings === null ? [] : (JSON.parse(row.headings) as string[]),
        text: row.text ?? '',
        versions: page.versions,
        languages: page.languages,
        analyzed: row.analyzed,
      };
      if (builder.addStored(chunk, row.ord)) continue;
      analysisOf ??= (await import('./search-index.ts')).analysisOf;
      builder.addAnalyzed(chunk, analysisOf(chunk), row.ord);
    }
    reply({ type: 'added', chunks: builder.chunks });
  } else if (message.stream) {
    const done = builder;
    builder = null;
    pages.clear();
    await streamIndex(done, message.stream);
    reply({ type: 'streamed' });
  } else {
    const index = builder.finish();
    builder = null;
    pages.clear();
    // The pieces are views over the index's own arrays: transferred, not copied.
    const pieces = encodeIndexPieces(index);
    reply({ type: 'done', pieces }, [...new Set(pieces.map((p) => p.buffer as ArrayBuffer))]);
  }
};

/** Parts sent and not yet stored by the main thread, and who waits for that number to fall. */
let unwritten = 0;
let onWritten: (() => void) | null = null;

async function streamIndex(
  done: SearchIndexBuilder,
  options: { partitionBytes: number; window: number },
): Promise<void> {
  const cutter = new IndexPartCutter((part, data) => {
    unwritten++;
    reply({ type: 'part', part, data }, [data.buffer as ArrayBuffer]);
  });
  await done.finishInto(
    {
      start: (total) => {
        cutter.start(total);
        reply({ type: 'parts', parts: partCount(total) });
      },
      write: (offset, bytes) => cutter.write(offset, bytes),
      flush: async () => {
        while (unwritten > options.window)
          await new Promise<void>((resolve) => {
            onWritten = resolve;
          });
      },
    },
    options.partitionBytes,
  );
  if (cutter.unfinished !== 0) throw new Error(`${cutter.unfinished} index parts were left unfinished`);
}

// One message at a time, in order: a batch may wait for the analyzer to load. A part's acknowledgement
// is taken at once: the streaming `finish` it unblocks is the message being handled.
let queue = Promise.resolve();
port.on('message', (message: BuildRequest) => {
  if (message.type === 'written') {
    unwritten--;
    const wake = onWritten;
    onWritten = null;
    wake?.();
    return;
  }
  queue = queue
    .then(() => handle(message))
    .catch((error: unknown) => {
      reply({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    });
});
