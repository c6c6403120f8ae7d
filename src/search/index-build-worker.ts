import { parentPort } from 'node:worker_threads';
import { encodeIndexPieces } from './index-codec.ts';
import { SearchIndexBuilder } from './search-index.ts';

/**
 * The index build, off the main thread: the main thread reads a site's stored chunks in batches
 * (build-site-index.ts) and posts them here; each batch is acknowledged once added, so at most a couple
 * of batches wait here at a time; `finish` answers with the serialized index, its arrays transferred.
 */
export type BuildRequest =
  | { type: 'pages'; pages: BuildPage[] }
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

const builder = new SearchIndexBuilder();
const pages = new Map<string, BuildPage>();

const reply = (message: BuildReply, transfer: ArrayBuffer[] = []): void =>
  port.postMessage(message, transfer);

port.on('message', (message: BuildRequest) => {
  try {
    if (message.type === 'pages') {
      for (const page of message.pages) pages.set(page.path, page);
    } else if (message.type === 'chunks') {
      for (const row of message.rows) {
        const page = pages.get(row.page_path);
        // The foreign key keeps every chunk's page; a missing one would be a damaged database.
        if (!page) continue;
        builder.add(
          {
            id: builder.chunks,
            pagePath: row.page_path,
            pageTitle: page.title,
            headings: row.headings === null ? [] : (JSON.parse(row.headings) as string[]),
            text: row.text ?? '',
            versions: page.versions,
            languages: page.languages,
            analyzed: row.analyzed,
          },
          row.ord,
        );
      }
      reply({ type: 'added', chunks: builder.chunks });
    } else {
      // The pieces are views over the index's own arrays: transferred, not copied.
      const pieces = encodeIndexPieces(builder.finish());
      reply({ type: 'done', pieces }, [...new Set(pieces.map((p) => p.buffer as ArrayBuffer))]);
    }
  } catch (error) {
    reply({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
});
