/**
 * Pathological docs folders, generated: each holds one hostile page (or folder shape) and one fine page.
 * `before` is what the input cost before the limits, as measured when the hardening issue was filed
 * (not re-measured: several of them ended the process).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  MAX_DOCS_PAGE_FILES,
  MAX_PAGE_LINES,
  MAX_PAGE_MARKUP_CHARS,
  MAX_TABLE_CELLS,
} from '../../src/ingest/ingest-limits.ts';
import { snippetChain } from '../../src/testing/snippet-chain.ts';

export interface HostileFolder {
  name: string;
  what: string;
  before: string;
  write(dir: string): void;
}

const fine = '---\ntitle: Fine\n---\n\nA fine page about widgets.\n';

const writeAll = (dir: string, files: Record<string, string>): void => {
  for (const [rel, text] of Object.entries({ 'index.md': fine, ...files })) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
};

/** A page starting a chain of `count` snippets of about `size` characters each. */
const snippetPage = (count: number, includesOfNext: number, size: number): Record<string, string> => ({
  'page.mdx': `import S0 from '/snippets/s0.mdx';\n\n# Page\n\n<S0 />\n`,
  ...snippetChain({
    count,
    includesOfNext,
    body: () => `${'Widgets need gadgets. '.repeat(Math.ceil(size / 22))}\n`,
  }),
});

const tableOf = (columns: number, rows: number): string =>
  [
    `|${' a |'.repeat(columns)}`,
    `|${' - |'.repeat(columns)}`,
    ...Array.from({ length: rows - 1 }, () => `|${' b |'.repeat(columns)}`),
  ].join('\n');

export const HOSTILE_FOLDERS: HostileFolder[] = [
  {
    name: 'baseline',
    what: 'two fine pages',
    before: '—',
    write: (dir) => writeAll(dir, { 'other.md': fine }),
  },
  {
    name: 'snippet fan-out',
    what: '25 snippets of 2 KB, each including the next 10 times',
    before: '2 min 52 s, 4.27 GB, 252,000 chunks (the issue: 25 files including each other)',
    write: (dir) => writeAll(dir, snippetPage(25, 10, 2_000)),
  },
  {
    name: 'snippet chain',
    what: '40 snippets, each including the next once',
    before: 'inlined 40 deep',
    write: (dir) => writeAll(dir, snippetPage(40, 1, 200)),
  },
  {
    name: 'wide table',
    what: '2 MB: one header row of 500,000 cells',
    before: 'out of memory at 4.58 GB: process ended',
    write: (dir) => writeAll(dir, { 'wide.md': `|${'a|'.repeat(500_000)}\n|${'-|'.repeat(500_000)}\n` }),
  },
  {
    name: 'table at the cell limit',
    what: `${MAX_TABLE_CELLS.toLocaleString('en-US')} cells (100 columns)`,
    before: '—',
    write: (dir) => writeAll(dir, { 'table.md': tableOf(100, MAX_TABLE_CELLS / 100) }),
  },
  {
    name: 'emphasis runs',
    what: "80 KB of unmatched '*a_ ' delimiters",
    before: '22 s on the main thread (superlinear)',
    write: (dir) => writeAll(dir, { 'emphasis.md': `${'*a_ '.repeat(20_000)}\n` }),
  },
  {
    name: 'nested lists',
    what: '5,000 list levels',
    before: 'parser threw: process ended',
    write: (dir) => writeAll(dir, { 'deep.md': `${'- '.repeat(5_000)}item\n` }),
  },
  {
    name: 'nested JSX',
    what: '20,000 elements deep',
    before: 'parser threw: process ended',
    write: (dir) => writeAll(dir, { 'deep.mdx': `${'<a>'.repeat(20_000)}x${'</a>'.repeat(20_000)}\n` }),
  },
  {
    name: 'heading flood',
    what: '2 MB of headings, each with a line of text',
    before: '—',
    write: (dir) => writeAll(dir, { 'long.md': '## h\n\nt\n\n'.repeat(209_715) }),
  },
  {
    name: 'lines at the limit',
    what: `${MAX_PAGE_LINES.toLocaleString('en-US')} non-blank lines: headings, each with a line of text`,
    before: '—',
    write: (dir) => writeAll(dir, { 'long.md': '## h\n\nt\n\n'.repeat(MAX_PAGE_LINES / 2) }),
  },
  {
    name: 'inline flood',
    what: '2 MB of one-letter emphasis and code spans on one line',
    before: '—',
    write: (dir) => writeAll(dir, { 'inline.md': `${'*a* `b` '.repeat(262_000)}\n` }),
  },
  {
    name: 'markup at the limit',
    what: `${MAX_PAGE_MARKUP_CHARS.toLocaleString('en-US')} markup characters: emphasis and code spans`,
    before: '—',
    write: (dir) => writeAll(dir, { 'inline.md': `${'*a* `b` '.repeat(MAX_PAGE_MARKUP_CHARS / 4)}\n` }),
  },
  {
    name: 'largest page',
    what: '2 MB of prose (MAX_PAGE_FILE_BYTES)',
    before: '—',
    write: (dir) =>
      writeAll(dir, {
        'big.md': `# Big\n\n${'Widgets need gadgets and sprockets to run well. '.repeat(43_000)}\n`,
      }),
  },
  {
    name: 'most pages',
    what: `${MAX_DOCS_PAGE_FILES.toLocaleString('en-US')} small pages (MAX_DOCS_PAGE_FILES)`,
    before: '—',
    write: (dir) => {
      writeAll(dir, {});
      for (let i = 1; i < MAX_DOCS_PAGE_FILES; i++)
        fs.writeFileSync(path.join(dir, `p${i}.md`), `# Page ${i}\n\nWidget number ${i}.\n`);
    },
  },
];
