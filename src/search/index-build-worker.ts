import { parentPort } from 'node:worker_threads';
import type { AnalyzedChunk } from './analyze.ts';
import { SearchIndexBuilder } from './index-builder.ts';
import { encodeIndexPieces } from './index-codec.ts';
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
    }
  | { type: 'chunks'; rows: BuildChunk[] }
  | { type: 'finish' };

export type BuildReply =
  | { type: 'added'; chunks: number }
  | { type: 'done'; pieces: Uint8Array[] }
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
  if (message.type === 'start') {
    builder = new SearchIndexBuilder(message.params, message.analyzerVersion);
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
  } else {
    const index = builder.finish();
    builder = null;
    pages.clear();
    // The pieces are views over the index's own arrays: transferred, not copied.
    const pieces = encodeIndexPieces(index);
    reply({ type: 'done', pieces }, [...new Set(pieces.map((p) => p.buffer as ArrayBuffer))]);
  }
};

// One message at a time, in order: a batch may wait for the analyzer to load.
let queue = Promise.resolve();
port.on('message', (message: BuildRequest) => {
  queue = queue
    .then(() => handle(message))
    .catch((error: unknown) => {
      reply({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    });
});
