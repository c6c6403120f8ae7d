import { describe, expect, it } from 'vitest';
import { loadDocsFolder } from '../ingest/load-docs-folder.ts';
import { evalSetDir } from '../testing/paths.ts';
import { readEvalSet } from './eval-set.ts';
import { scoreResults } from './metrics.ts';
import { buildSearchIndex, searchIndex } from './search-index.ts';
import { indexableChunksFromPages } from './site-chunks.ts';

describe('retrieval quality on claude-docs (real loader)', () => {
  it('beats the plain-BM25 floor (hit@5 0.91, MRR@10 0.819)', async () => {
    const set = await readEvalSet(evalSetDir('claude-docs'));
    const site = await loadDocsFolder(set.docsDir);
    const index = buildSearchIndex(indexableChunksFromPages(site.pages));
    const metrics = scoreResults(
      set.questions.map((q) => ({
        rankedPages: searchIndex(index, q.question, {
          limit: 100,
          version: q.filter?.version,
          language: q.filter?.language,
        }).map((h) => h.pagePath),
        relevant: q.relevant,
      })),
    );
    expect(metrics.questions).toBe(100);
    expect(metrics.hitAt5).toBeGreaterThan(0.91);
    expect(metrics.mrrAt10).toBeGreaterThan(0.819);
  });
});
