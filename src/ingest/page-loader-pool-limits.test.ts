import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadDocsFolder } from './load-docs-folder.ts';
import {
  createPageLoader,
  type PageCandidate,
  type PageLoaderOptions,
  type PageResult,
} from './load-page.ts';
import {
  createPageLoaderPool,
  MAX_PAGE_PARSE_WALL_FACTOR,
  PageWorkersUnavailableError,
} from './page-loader-pool.ts';

/** Hostile pages, generated: each one costs the parser far more than its size suggests. */
const hostile = {
  // remark-mdx recurses per element: the stack overflows (RangeError) even in a worker's larger stack.
  'deep-jsx.mdx': `${'<a>'.repeat(20_000)}x${'</a>'.repeat(20_000)}\n`,
  // Unmatched emphasis delimiters: micromark's attention resolution is quadratic (≈20 s for 48 KB here).
  'emphasis.md': `${'*a_ '.repeat(12_000)}\n`,
  // A table within MAX_TABLE_CELLS (20,000 cells): its cells make a tree hundreds of times the size of
  // the text, more than the small heap the tests give a worker.
  'wide-table.md': [
    `|${' a |'.repeat(100)}`,
    `|${' - |'.repeat(100)}`,
    ...Array.from({ length: 199 }, () => `|${' b |'.repeat(100)}`),
  ].join('\n'),
};
const innocent = {
  'ok-1.md': '# Widgets\n\nHow to install the widget.\n',
  'ok-2.md': '# Gadgets\n\n## Setup\n\nGadgets need a widget.\n',
  'ok-3.mdx': '---\ntitle: Sprockets\n---\n\n<Note>Sprockets are optional.</Note>\n',
};

const candidate = (file: string): PageCandidate => ({
  id: file.replace(/\.mdx?$/, ''),
  file,
  versions: [],
  languages: [],
  navOrder: null,
  navGroup: null,
});

describe('page loader pool limits', () => {
  let root: string;
  let options: PageLoaderOptions;
  const expected = new Map<string, PageResult>();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-hostile-pages-'));
    for (const [file, text] of Object.entries({ ...hostile, ...innocent })) {
      fs.writeFileSync(path.join(root, file), text);
    }
    options = { root, files: [...Object.keys(hostile), ...Object.keys(innocent)].sort(), indexHidden: false };
    const local = createPageLoader(options);
    for (const file of Object.keys(innocent)) expected.set(file, await local.load(candidate(file)));
  });
  afterEach(async () => {
    // A rejection nobody handles is reported after the microtasks of its turn.
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });
  afterAll(() => {
    process.off('unhandledRejection', onUnhandled);
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Loads the bad page between innocent ones on one worker, so they share its queue when it fails. */
  async function loadAround(
    bad: string,
    limits: {
      maxPageParseMs?: number;
      maxOldGenerationSizeMb?: number;
      threadCpuMs?: (clock: string) => number | null;
    },
  ): Promise<{ bad: PageResult; replacedWorkers: number }> {
    const pool = createPageLoaderPool(options, { workers: 1, ...limits });
    try {
      const files = ['ok-1.md', bad, 'ok-2.md', 'ok-3.mdx'];
      const results = await Promise.all(files.map((file) => pool.load(candidate(file))));
      for (const [i, file] of files.entries()) {
        if (file !== bad) expect(results[i], file).toEqual(expected.get(file));
      }
      return { bad: results[1] as PageResult, replacedWorkers: pool.stats().replacedWorkers };
    } finally {
      await pool.close();
    }
  }

  it('skips a page that throws, with a warning naming it, and loads the others', async () => {
    const { bad, replacedWorkers } = await loadAround('deep-jsx.mdx', {});
    expect(bad).toEqual({
      page: null,
      skipped: false,
      warnings: [
        {
          file: 'deep-jsx.mdx',
          message: 'failed to load page (RangeError: Maximum call stack size exceeded); page skipped',
        },
      ],
      snippetFiles: [],
    });
    // A page that throws leaves its worker in working order.
    expect(replacedWorkers).toBe(0);
  });

  it('skips a page over its time budget, replaces the worker and loads the pages queued behind it', async () => {
    const { bad, replacedWorkers } = await loadAround('emphasis.md', { maxPageParseMs: 2000 });
    expect(bad.page).toBeNull();
    expect(bad.warnings).toEqual([
      { file: 'emphasis.md', message: 'parsing took longer than 2000 ms (MAX_PAGE_PARSE_MS); page skipped' },
    ]);
    expect(replacedWorkers).toBe(1);
  });

  it("counts the budget in the worker thread's CPU time: a page kept off the CPU waits, up to a wall-clock cap", async () => {
    // A thread that never gets the CPU (a starved machine): under a wall-clock budget the page would be
    // dropped at 300 ms; on CPU time it keeps its budget until MAX_PAGE_PARSE_WALL_FACTOR times it passed.
    const clocks: string[] = [];
    const starved = (clock: string): number => {
      clocks.push(clock);
      return 0;
    };
    const began = performance.now();
    const { bad } = await loadAround('emphasis.md', { maxPageParseMs: 300, threadCpuMs: starved });
    const waited = performance.now() - began;
    expect(bad.warnings).toEqual([
      { file: 'emphasis.md', message: 'parsing took longer than 300 ms (MAX_PAGE_PARSE_MS); page skipped' },
    ]);
    // Timers never fire early: the page was given up no sooner than the cap (less a timer's rounding).
    expect(waited).toBeGreaterThanOrEqual(300 * MAX_PAGE_PARSE_WALL_FACTOR - 50);
    expect(clocks.length).toBeGreaterThan(2);
    expect(clocks[0]).toMatch(/^\/proc\/\d+\/task\/\d+\/schedstat$/);
  });

  it("skips a page that exhausts its worker's memory twice, and loads the others", async () => {
    const { bad, replacedWorkers } = await loadAround('wide-table.md', {
      maxOldGenerationSizeMb: 32,
      maxPageParseMs: 120_000,
    });
    expect(bad.page).toBeNull();
    expect(bad.warnings).toEqual([
      { file: 'wide-table.md', message: "parsing exhausted the page worker's memory (32 MB); page skipped" },
    ]);
    // Retried once on a fresh worker before it is blamed: a worker may die of what earlier pages left.
    expect(replacedWorkers).toBe(2);
  });

  it('rejects every load with PageWorkersUnavailableError when no worker can start', async () => {
    const pool = createPageLoaderPool(options, { workers: 2, maxOldGenerationSizeMb: 1 });
    try {
      const outcomes = await Promise.allSettled(
        Object.keys(innocent).map((file) => pool.load(candidate(file))),
      );
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(PageWorkersUnavailableError);
      }
      await expect(pool.load(candidate('ok-1.md'))).rejects.toBeInstanceOf(PageWorkersUnavailableError);
    } finally {
      await pool.close();
    }
  });

  it("reports a skipped page among the folder's warnings; without workers the load fails", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-hostile-folder-'));
    try {
      fs.writeFileSync(path.join(dir, 'emphasis.md'), hostile['emphasis.md']);
      fs.writeFileSync(path.join(dir, 'ok-1.md'), innocent['ok-1.md']);
      const site = await loadDocsFolder(dir, { limits: { maxPageParseMs: 2000 } });
      expect(site.pages.map((p) => p.path)).toEqual(['ok-1']);
      expect(site.warnings).toEqual([
        {
          file: 'emphasis.md',
          message: 'parsing took longer than 2000 ms (MAX_PAGE_PARSE_MS); page skipped',
        },
      ]);
      // Nothing could be parsed: failing keeps a site's stored pages, where an empty result would delete them.
      await expect(loadDocsFolder(dir, { limits: { maxOldGenerationSizeMb: 1 } })).rejects.toBeInstanceOf(
        PageWorkersUnavailableError,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps navigation labels named like Object.prototype members as ordinary labels', async () => {
    const labels = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-hostile-labels-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'docs.json'),
        JSON.stringify({
          name: 'Labels',
          navigation: {
            versions: labels.map((version, i) => ({
              version,
              languages: labels.map((language) => ({
                language,
                pages: [`page-${i}`, 'shared', 'constructor', '__proto__'],
              })),
            })),
          },
        }),
      );
      for (const id of [...labels.map((_, i) => `page-${i}`), 'shared', 'constructor', '__proto__']) {
        fs.writeFileSync(path.join(dir, `${id}.md`), `---\ntitle: Page ${id}\n---\n\nText about widgets.\n`);
      }
      const site = await loadDocsFolder(dir, {
        analyze: true,
        // Stored hashes are keyed by page id: a page named `constructor` must not find a prototype's.
        known: JSON.parse('{"__proto__": "x", "shared": "y"}') as Record<string, string>,
      });
      expect(site.warnings).toEqual([]);
      expect(site.navigation).toMatchObject({ versions: labels, languages: labels });
      const shared = site.pages.find((p) => p.path === 'shared');
      expect(shared).toMatchObject({ versions: labels, languages: labels, title: 'Page shared' });
      expect(site.pages.find((p) => p.path === 'page-1')).toMatchObject({
        versions: ['__proto__'],
        languages: labels,
      });
      expect(site.pages.map((p) => p.path).sort()).toEqual(
        ['__proto__', 'constructor', 'page-0', 'page-1', 'page-2', 'page-3', 'shared'].sort(),
      );
      for (const id of ['constructor', '__proto__']) {
        expect(site.pages.find((p) => p.path === id)).toMatchObject({
          title: `Page ${id}`,
          versions: labels,
        });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
