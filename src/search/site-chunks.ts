import type { ParsedPage } from '../ingest/types.ts';
import { analyzeChunk } from './analyze.ts';
import type { IndexableChunk } from './types.ts';

/**
 * Parsed pages → indexable chunks with their analysis, numbering chunks from `firstId`. What storage does
 * at ingestion, minus the database: used by benchmarks and tests that index a docs folder directly.
 */
export const indexableChunksFromPages = (pages: readonly ParsedPage[], firstId = 1): IndexableChunk[] => {
  const out: IndexableChunk[] = [];
  let id = firstId;
  for (const page of pages) {
    for (const chunk of page.chunks) {
      out.push({
        id: id++,
        pagePath: page.path,
        pageTitle: page.title,
        headings: chunk.headings,
        text: chunk.text,
        versions: page.versions,
        languages: page.languages,
        analyzed: analyzeChunk({
          pageTitle: page.title,
          headings: chunk.headings,
          text: chunk.text,
          language: page.languages[0] ?? null,
        }),
      });
    }
  }
  return out;
};
