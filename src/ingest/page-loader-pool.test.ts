import { describe, expect, it } from 'vitest';
import { corpusDir } from '../testing/paths.ts';
import { listDocsFiles } from './docs-files.ts';
import { createPageLoader, type PageCandidate } from './load-page.ts';
import { createPageLoaderPool, PARALLEL_MIN_PAGES, workerCountFor } from './page-loader-pool.ts';

describe('page loader pool', () => {
  it('gives exactly what the single-threaded loader gives, in order', async () => {
    const root = corpusDir('unstructured-docs');
    const docs = await listDocsFiles(root);
    const candidates: PageCandidate[] = docs.files
      .filter((file) => !file.startsWith('snippets/'))
      .slice(0, 60)
      .map((file, i) => ({
        id: file.replace(/\.mdx?$/, ''),
        file,
        versions: ['v1'],
        languages: [],
        navOrder: i,
        navGroup: 'G',
      }));
    const options = { root, files: docs.files, indexHidden: false };
    const local = createPageLoader(options);
    const expected = [];
    for (const candidate of candidates) expected.push(await local(candidate));

    const pool = createPageLoaderPool(options, 2);
    try {
      const actual = await Promise.all(candidates.map((candidate) => pool.load(candidate)));
      expect(actual).toEqual(expected);
      expect(actual.filter((r) => r.page !== null).length).toBeGreaterThan(40);
      const stats = pool.stats();
      expect(stats.workers).toBeGreaterThan(0);
      expect(stats.local + stats.workers).toBe(candidates.length);
    } finally {
      await pool.close();
    }
  });

  it('uses workers only for sites large enough to pay for them', () => {
    expect(workerCountFor(PARALLEL_MIN_PAGES - 1)).toBe(0);
    expect(workerCountFor(PARALLEL_MIN_PAGES)).toBeLessThanOrEqual(4);
  });
});
