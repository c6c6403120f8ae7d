/**
 * The floor under cold ingestion: how fast the Markdown/MDX parser alone (parseSource, the function the
 * page workers call, with remark-parse, remark-mdx and GFM tables) reads every page file of a folder on
 * one thread, with no chunking, analysis or storage. Ingestion cannot beat this figure divided by the
 * number of parsing threads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { listDocsFiles } from '../../src/ingest/docs-files.ts';
import { parseSource } from '../../src/ingest/parse-markdown.ts';

export interface ParserFloor {
  files: number;
  bytes: number;
  seconds: number;
  pagesPerSecond: number;
  megabytesPerSecond: number;
}

export async function measureParserFloor(dir: string): Promise<ParserFloor> {
  const root = path.resolve(dir);
  const { files } = await listDocsFiles(root);
  const sources = files.map((file) => ({ file, source: fs.readFileSync(path.join(root, file), 'utf8') }));
  // One warm-up pass so that the parser's code is compiled before it is timed.
  for (const { file, source } of sources.slice(0, 50)) parseSource(file, source, () => {});
  const started = performance.now();
  for (const { file, source } of sources) parseSource(file, source, () => {});
  const seconds = (performance.now() - started) / 1000;
  const bytes = sources.reduce((sum, s) => sum + Buffer.byteLength(s.source), 0);
  return {
    files: sources.length,
    bytes,
    seconds,
    pagesPerSecond: sources.length / seconds,
    megabytesPerSecond: bytes / 1e6 / seconds,
  };
}

/** Bytes of the Markdown files of a folder: what ingestion's MB/s is counted over. */
export async function markdownBytes(dir: string): Promise<number> {
  const root = path.resolve(dir);
  const { files } = await listDocsFiles(root);
  return files.reduce((sum, file) => sum + fs.statSync(path.join(root, file)).size, 0);
}
