import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snippetChain } from '../testing/snippet-chain.ts';
import { MAX_PAGE_FILE_BYTES } from './contained-file.ts';
import { listDocsFiles } from './docs-files.ts';
import {
  MAX_DOCS_FOLDER_DEPTH,
  MAX_DOCS_PAGE_FILES,
  MAX_DOCS_TOTAL_BYTES,
  MAX_PAGE_CHUNKS,
  MAX_PAGE_EXPANDED_CHARS,
  MAX_PAGE_LINES,
  MAX_PAGE_MARKUP_CHARS,
  MAX_SNIPPET_DEPTH,
  MAX_TABLE_CELLS,
} from './ingest-limits.ts';
import { loadDocsFolder } from './load-docs-folder.ts';
import { countTableCells } from './table-cells.ts';
import type { LoadedSite } from './types.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

const fixture = (files: Record<string, string>): string => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-limits-'));
  roots.push(root);
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  return root;
};

const textOf = (site: LoadedSite, id: string): string =>
  site.pages
    .find((p) => p.path === id)
    ?.chunks.map((c) => c.text)
    .join('\n') ?? '';

/** About 2 KB of prose naming its file, so what was inlined can be counted. */
const prose = (name: string): string =>
  `Text of ${name}. ${'Widgets need gadgets and sprockets. '.repeat(55)}`;

describe('snippet limits', () => {
  it('cuts a fan-out of snippets that include each other (25 files of 2 KB) at the expansion limit', async () => {
    // Each snippet includes the next one ten times: 10^24 inclusions without a limit.
    const files = {
      'page.mdx': `---\ntitle: Fan\n---\n\nimport S0 from '/snippets/s0.mdx';\n\n<S0 />\n`,
      ...snippetChain({ count: 25, includesOfNext: 10, body: (i) => `${prose(`s${i}`)}\n` }),
    };
    const site = await loadDocsFolder(fixture(files));
    const page = site.pages.find((p) => p.path === 'page');
    const chars = page?.chunks.reduce((sum, c) => sum + c.text.length, 0) ?? 0;
    expect(chars).toBeGreaterThan(MAX_PAGE_EXPANDED_CHARS / 2);
    expect(chars).toBeLessThanOrEqual(MAX_PAGE_EXPANDED_CHARS);
    expect(page?.chunks.length).toBeLessThanOrEqual(MAX_PAGE_CHUNKS);
    const limitWarnings = site.warnings.filter((w) => w.message.includes('MAX_PAGE_EXPANDED_CHARS'));
    expect(limitWarnings).toHaveLength(1);
    expect(limitWarnings[0]).toMatchObject({ file: 'page.mdx' });
    expect(limitWarnings[0]?.message).toMatch(
      /^page expands past 4194304 characters with its snippets \(MAX_PAGE_EXPANDED_CHARS\); snippets\/s\d+\.mdx and later snippets not inlined$/,
    );
  });

  it(`inlines snippets ${MAX_SNIPPET_DEPTH} deep and no deeper`, async () => {
    const files = {
      'page.mdx': `---\ntitle: Deep\n---\n\nimport S1 from '/snippets/s1.mdx';\n\n<S1 />\n`,
      ...snippetChain({ first: 1, count: 12, includesOfNext: 1, body: (i) => `Marker-${i}-end.\n` }),
    };
    const site = await loadDocsFolder(fixture(files));
    const text = textOf(site, 'page');
    for (let i = 1; i <= MAX_SNIPPET_DEPTH; i++) expect(text).toContain(`Marker-${i}-end`);
    expect(text).not.toContain(`Marker-${MAX_SNIPPET_DEPTH + 1}-end`);
    expect(site.warnings).toContainEqual({
      file: 'page.mdx',
      message: `snippets nested deeper than ${MAX_SNIPPET_DEPTH} (MAX_SNIPPET_DEPTH); snippets/s${MAX_SNIPPET_DEPTH + 1}.mdx and any deeper not inlined`,
    });
  });

  it('does not read or parse the snippets of a chain past the depth it inlines', async () => {
    // Every link of a long chain of large snippets used to be parsed for each page that starts it.
    const files = {
      'page.mdx': `---\ntitle: Deep\n---\n\nimport S1 from '/snippets/s1.mdx';\n\n<S1 />\n`,
      ...snippetChain({
        first: 1,
        count: 40,
        includesOfNext: 1,
        // Unparseable past the depth: a warning names each one that is read.
        body: (i) => (i > MAX_SNIPPET_DEPTH + 2 ? `Broken {${i}\n` : `Marker-${i}-end.\n`),
      }),
    };
    const site = await loadDocsFolder(fixture(files));
    expect(textOf(site, 'page')).toContain(`Marker-${MAX_SNIPPET_DEPTH}-end`);
    const read = site.warnings.filter((w) => /^snippets\/s\d+\.mdx$/.test(w.file));
    expect(read).toEqual([]);
  });
});

describe('table cells', () => {
  it('counts the cells of each table from its header to its last row', () => {
    const table = ['| a | b |', '| --- | :-: |', '| 1 | 2 |', '| 3 | 4 |', '', 'after'].join('\n');
    expect(countTableCells(table)).toBe(6);
    expect(countTableCells('> | a | b |\n> |---|---|\n> | 1 | 2 |\n')).toBe(4);
    expect(countTableCells('a | b | c\n--|--|--\n1 | 2 | 3\n')).toBe(6);
    expect(countTableCells('No table | here.\n\n---\n\nA | B\n')).toBe(0);
  });

  it('counts a 2 MB line without backtracking', () => {
    const line = `${' '.repeat(1_000_000)}|${' '.repeat(1_000_000)}x`;
    expect(countTableCells(`| a |\n${line}\n`)).toBe(0);
    expect(countTableCells(`${'|'.repeat(1_000_000)}\n|${'-|'.repeat(500_000)}\n`)).toBeGreaterThan(
      MAX_TABLE_CELLS,
    );
  });

  it('skips a page (or a snippet) whose tables hold more cells than the limit, before parsing it', async () => {
    const columns = 100;
    const rows = Math.ceil(MAX_TABLE_CELLS / columns);
    const wide = [
      `|${' a |'.repeat(columns)}`,
      `|${' - |'.repeat(columns)}`,
      ...Array.from({ length: rows }, () => `|${' b |'.repeat(columns)}`),
    ].join('\n');
    const site = await loadDocsFolder(
      fixture({
        'wide.md': `# Wide\n\n${wide}\n`,
        'small.md': '# Small\n\n| a | b |\n|---|---|\n| 1 | 2 |\n',
        'uses.mdx': `import Wide from '/snippets/wide.mdx';\n\n# Uses\n\nBefore.\n\n<Wide />\n`,
        'snippets/wide.mdx': wide,
      }),
    );
    expect(site.pages.map((p) => p.path).sort()).toEqual(['small', 'uses']);
    expect(textOf(site, 'small')).toContain('1 | 2');
    expect(textOf(site, 'uses')).toContain('Before.');
    expect(site.warnings).toContainEqual({
      file: 'wide.md',
      message: `tables hold more than ${MAX_TABLE_CELLS} cells (MAX_TABLE_CELLS); skipped`,
    });
    expect(site.warnings).toContainEqual({
      file: 'snippets/wide.mdx',
      message: `tables hold more than ${MAX_TABLE_CELLS} cells (MAX_TABLE_CELLS); not inlined`,
    });
  });
});

describe('parse cost', () => {
  it('skips a page or snippet over the line or markup limits before parsing it, and keeps one at them', async () => {
    const atLines = '## h\n\nt\n\n'.repeat(MAX_PAGE_LINES / 2);
    // Mid-line `#` is plain text: cheap to parse, so this checks the count, not the parser's speed.
    const atMarkup = `${'a#b '.repeat(MAX_PAGE_MARKUP_CHARS)}\n`;
    const site = await loadDocsFolder(
      fixture({
        'lines.md': `${atLines}x\n`,
        'markup.md': `${atMarkup}#\n`,
        'at-lines.md': atLines,
        'at-markup.md': atMarkup,
        'uses.mdx': `import Big from '/snippets/big.mdx';\n\n# Uses\n\nBefore.\n\n<Big />\n`,
        'snippets/big.mdx': `${atMarkup}#\n`,
      }),
    );
    expect(site.pages.map((p) => p.path).sort()).toEqual(['at-lines', 'at-markup', 'uses']);
    expect(site.warnings).toEqual(
      expect.arrayContaining([
        {
          file: 'lines.md',
          message: `more than ${MAX_PAGE_LINES} non-blank lines (MAX_PAGE_LINES); skipped`,
        },
        {
          file: 'markup.md',
          message: `more than ${MAX_PAGE_MARKUP_CHARS} markup characters (MAX_PAGE_MARKUP_CHARS); skipped`,
        },
        {
          file: 'snippets/big.mdx',
          message: `more than ${MAX_PAGE_MARKUP_CHARS} markup characters (MAX_PAGE_MARKUP_CHARS); not inlined`,
        },
      ]),
    );
  });
});

describe('chunks per page', () => {
  it(`indexes the first ${MAX_PAGE_CHUNKS} chunks of a longer page`, async () => {
    const body = Array.from({ length: 2_500 }, (_, i) => `## Part ${i}\n\nText of part ${i}.\n`).join('\n');
    const site = await loadDocsFolder(fixture({ 'long.md': `# Long\n\n${body}` }));
    const page = site.pages.find((p) => p.path === 'long');
    expect(page?.chunks).toHaveLength(MAX_PAGE_CHUNKS);
    expect(site.warnings).toContainEqual({
      file: 'long.md',
      message: expect.stringMatching(
        new RegExp(
          `^page makes \\d+ chunks; only the first ${MAX_PAGE_CHUNKS} are indexed \\(MAX_PAGE_CHUNKS\\)$`,
        ),
      ),
    });
  });
});

describe('folder limits', () => {
  it(`skips folders nested deeper than ${MAX_DOCS_FOLDER_DEPTH}, saying why`, async () => {
    const deep = Array.from({ length: MAX_DOCS_FOLDER_DEPTH + 1 }, (_, i) => `d${i}`);
    const root = fixture({
      'index.md': '# Top\n',
      [`${deep.slice(0, MAX_DOCS_FOLDER_DEPTH).join('/')}/last.md`]: '# Last allowed\n',
      [`${deep.join('/')}/too-deep.md`]: '# Too deep\n',
    });
    const site = await loadDocsFolder(root);
    const ids = site.pages.map((p) => p.path);
    expect(ids).toContain(`${deep.slice(0, MAX_DOCS_FOLDER_DEPTH).join('/')}/last`);
    expect(ids.some((id) => id.endsWith('too-deep'))).toBe(false);
    expect(site.warnings).toContainEqual({
      file: deep.join('/'),
      message: `nested deeper than ${MAX_DOCS_FOLDER_DEPTH} folders; not read`,
    });
  });

  it('fails a folder with more page files than the limit, naming it', async () => {
    const root = fixture({});
    for (let i = 0; i <= MAX_DOCS_PAGE_FILES; i++) fs.writeFileSync(path.join(root, `p${i}.md`), '');
    await expect(loadDocsFolder(root)).rejects.toThrow(
      `docs folder has more than ${MAX_DOCS_PAGE_FILES} .md/.mdx files (MAX_DOCS_PAGE_FILES); nothing ingested`,
    );
    // Writing 20,001 files is the file system's work: 4.5 to 36 s in CI runs, past 60 s on a busy machine.
  }, 180_000);

  it('fails a folder with more entries than the limit, whatever they are, counted across subfolders', async () => {
    const root = fixture({ 'index.md': '# Index\n', 'a/b/c.txt': '', 'a/d.png': '' });
    expect((await listDocsFiles(root, 5)).files).toEqual(['index.md']);
    await expect(listDocsFiles(root, 4)).rejects.toThrow(
      'docs folder has more than 4 entries (MAX_DOCS_FOLDER_ENTRIES); nothing ingested',
    );
  });

  it('fails a folder whose pages hold more bytes than the limit', async () => {
    const root = fixture({});
    // Sparse files: their size counts, and they take no disk.
    const count = Math.floor(MAX_DOCS_TOTAL_BYTES / MAX_PAGE_FILE_BYTES) + 1;
    for (let i = 0; i < count; i++) fs.truncateSync(touch(path.join(root, `p${i}.md`)), MAX_PAGE_FILE_BYTES);
    await expect(loadDocsFolder(root)).rejects.toThrow(
      `docs folder's .md/.mdx files hold more than ${MAX_DOCS_TOTAL_BYTES} bytes (MAX_DOCS_TOTAL_BYTES); nothing ingested`,
    );
  });
});

const touch = (file: string): string => {
  fs.writeFileSync(file, '');
  return file;
};
