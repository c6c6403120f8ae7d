import { describe, expect, it } from 'vitest';
import { corpusDir } from '../testing/paths.ts';
import { listDocsFiles } from './docs-files.ts';
import { createPageLoader, type PageCandidate } from './load-page.ts';
import {
  createPageLoaderPool,
  MAX_PAGE_WORKERS,
  PARALLEL_MIN_PAGES,
  workerCountFor,
} from './page-loader-pool.ts';

describe('page loader pool', () => {
  it('gives exactly what the loader gives on one thread, in order, parsing only in workers', async () => {
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
    for (const candidate of candidates) expected.push(await local.load(candidate));

    const pool = createPageLoaderPool(options, { workers: 2 });
    try {
      const actual = await Promise.all(candidates.map((candidate) => pool.load(candidate)));
      expect(actual).toEqual(expected);
      expect(actual.filter((r) => r.page !== null).length).toBeGreaterThan(40);
      expect(pool.stats()).toEqual({ loaded: candidates.length, failed: 0, replacedWorkers: 0 });
    } finally {
      await pool.close();
    }
  });

  it('gives small sites one worker and large ones one per core', () => {
    expect(workerCountFor(0)).toBe(1);
    expect(workerCountFor(PARALLEL_MIN_PAGES - 1)).toBe(1);
    expect(workerCountFor(PARALLEL_MIN_PAGES)).toBeGreaterThanOrEqual(1);
    expect(workerCountFor(PARALLEL_MIN_PAGES)).toBeLessThanOrEqual(MAX_PAGE_WORKERS);
  });
});
