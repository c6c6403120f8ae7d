import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { MAX_PAGE_FILE_BYTES } from './contained-file.ts';
import { SYMLINKED_FOLDER_REASON } from './docs-files.ts';
import { ingestSite } from './ingest-site.ts';
import { getIngestionJob } from './jobs.ts';
import { loadDocsFolder } from './load-docs-folder.ts';
import { DocsConfigError } from './navigation.ts';
import type { Warning } from './types.ts';

/**
 * Hostile docs folders: links out of the folder (to a secret file, /proc/self/environ, another tree),
 * link cycles, FIFOs and oversized files. Ingestion must finish, index the rest, warn about each entry
 * by its path inside the folder, and store nothing of what lies outside, not even in a warning.
 */

const MARKER = 'OUTSIDE-SECRET-c41d';

const base = mkdtempSync(path.join(tmpdir(), 'docent-containment-'));
const outside = path.join(base, 'other-org');
afterAll(() => rmSync(base, { recursive: true, force: true }));

// What /proc/self/environ would give away: this process's environment, as the kernel holds it.
const environEntries = existsSync('/proc/self/environ')
  ? readFileSync('/proc/self/environ', 'utf8')
      .split('\0')
      .filter((entry) => entry.length >= 12)
  : [];

const write = (file: string, content: string): void => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
};

const md = (title: string, body: string): string => `---\ntitle: ${title}\n---\n\n${body}\n`;

beforeAll(() => {
  write(path.join(outside, 'secret.md'), md(MARKER, `The ${MARKER} text.`));
  write(path.join(outside, 'snippet.mdx'), `${MARKER} in a snippet.\n`);
  write(path.join(outside, 'tree', 'leak.md'), md(MARKER, `${MARKER} in a folder.`));
  write(path.join(outside, 'nav.json'), JSON.stringify({ group: MARKER, pages: [`${MARKER}-page`] }));
  write(path.join(outside, 'docs.json'), JSON.stringify({ name: MARKER, navigation: { pages: ['index'] } }));
});

/** The hostile entries every fixture shares; returns the entries that must each get a warning. */
const hostileEntries = (root: string): string[] => {
  write(path.join(root, 'index.mdx'), md('Welcome', 'Start here with pineapples.'));
  write(
    path.join(root, 'guide.mdx'),
    md('Guide', "import Leak from '/snippets/leak.mdx';\n\nGuides about mangoes.\n\n<Leak />"),
  );
  symlinkSync(path.join(outside, 'snippet.mdx'), path.join(root, 'snippets', 'leak.mdx'));
  symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'secret.md'));
  symlinkSync('/proc/self/environ', path.join(root, 'environ.md'));
  symlinkSync(path.join(outside, 'tree'), path.join(root, 'ext'));
  symlinkSync('.', path.join(root, 'loop'));
  symlinkSync('cycle-b.md', path.join(root, 'cycle-a.md'));
  symlinkSync('cycle-a.md', path.join(root, 'cycle-b.md'));
  execFileSync('mkfifo', [path.join(root, 'page.md')]);
  write(path.join(root, 'big.md'), `# Big\n\n${'word '.repeat(MAX_PAGE_FILE_BYTES / 5 + 1)}\n`);
  // Inside the folder, to inside it: followed.
  symlinkSync('index.mdx', path.join(root, 'alias.mdx'));
  return [
    'snippets/leak.mdx',
    'secret.md',
    'environ.md',
    'ext',
    'loop',
    'cycle-a.md',
    'cycle-b.md',
    'page.md',
    'big.md',
  ];
};

interface Fixture {
  root: string;
  refused: string[];
  indexed: string[];
}

const plainFolder = (): Fixture => {
  const root = path.join(base, 'plain');
  mkdirSync(path.join(root, 'snippets'), { recursive: true });
  return { root, refused: hostileEntries(root), indexed: ['index', 'guide', 'alias'] };
};

const navigationFolder = (): Fixture => {
  const root = path.join(base, 'navigation');
  mkdirSync(path.join(root, 'snippets'), { recursive: true });
  const refused = hostileEntries(root);
  mkdirSync(path.join(root, 'nav'));
  symlinkSync(path.join(outside, 'nav.json'), path.join(root, 'nav', 'outside.json'));
  execFileSync('mkfifo', [path.join(root, 'nav', 'fifo.json')]);
  write(
    path.join(root, 'docs.json'),
    JSON.stringify({
      name: 'Hostile',
      navigation: {
        groups: [
          {
            group: 'All',
            pages: ['index', 'guide', 'alias', 'secret', 'environ', 'cycle-a', 'page', 'big', 'ext/leak'],
          },
          { $ref: 'nav/outside.json' },
          { $ref: 'nav/fifo.json' },
        ],
      },
    }),
  );
  return {
    root,
    refused: [...refused.filter((e) => e !== 'cycle-b.md'), 'nav/outside.json', 'nav/fifo.json'],
    indexed: ['index', 'guide', 'alias'],
  };
};

const expectContained = (stored: string): void => {
  expect(stored).not.toContain(MARKER);
  expect(stored).not.toContain(outside);
  expect(stored).not.toContain('/proc');
  for (const entry of environEntries) expect(stored).not.toContain(entry);
};

const expectWarned = (warnings: Warning[], entries: string[]): void => {
  for (const entry of entries) {
    expect(
      warnings.some((w) => w.file === entry),
      `a warning names ${entry}: ${JSON.stringify(warnings)}`,
    ).toBe(true);
  }
};

describe('loading a docs folder stays inside it', () => {
  it.each([
    [
      'links out of the folder, without a word of what it links to',
      'linked-config',
      () => path.join(outside, 'docs.json'),
    ],
    [
      'links to nothing, not read as a folder without one',
      'dangling-config',
      (root: string) => path.join(root, 'generated', 'docs.json'),
    ],
  ])('refuses a docs.json that %s', async (_, name, target) => {
    const root = path.join(base, name);
    write(path.join(root, 'index.mdx'), md('Welcome', 'Plain pages.'));
    symlinkSync(target(root), path.join(root, 'docs.json'));
    const failure = await loadDocsFolder(root).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DocsConfigError);
    expect(String((failure as Error).message)).toMatch(/^docs\.json cannot be read \(/);
    expectContained(String((failure as Error).message));
  });

  it('names why a symlinked folder is left out', async () => {
    const { listDocsFiles } = await import('./docs-files.ts');
    const root = path.join(base, 'listing');
    write(path.join(root, 'a.md'), '# A\n');
    symlinkSync(path.join(outside, 'tree'), path.join(root, 'ext'));
    symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'notes'));
    const docs = await listDocsFiles(root);
    expect(docs.files).toEqual(['a.md']);
    expect(docs.unreadable).toEqual(['ext']);
    expect(docs.refused.get('ext')).toBe(SYMLINKED_FOLDER_REASON);
  });

  it('leaves out page files whose names hold control characters or make no page path', async () => {
    const { listDocsFiles } = await import('./docs-files.ts');
    const root = path.join(base, 'names');
    const names = [
      'new\nline.md',
      'red\u001b[31m.md',
      'tab\there.mdx',
      '..md',
      '...md',
      'sub/.md',
      'ok.md',
      '.hidden.md',
      'bad\u001b[2Kdir/page.md',
      'new\nfolder/page.md',
    ];
    for (const name of names) write(path.join(root, name), '# Page\n');
    const docs = await listDocsFiles(root);
    expect(docs.files).toEqual(['.hidden.md', 'ok.md']);
    expect(Object.fromEntries(docs.refused)).toEqual({
      'bad\u001b[2Kdir': 'folder name holds control characters; not read',
      'new\nfolder': 'folder name holds control characters; not read',
      'sub/.md': 'file name makes the page path ""; not read',
      'new\nline.md': 'file name holds control characters; not read',
      'red\u001b[31m.md': 'file name holds control characters; not read',
      'tab\there.mdx': 'file name holds control characters; not read',
      '..md': 'file name makes the page path "."; not read',
      '...md': 'file name makes the page path ".."; not read',
    });
  });
});

const fixtures = { plain: plainFolder, navigation: navigationFolder };
/** Built once, ingested on each database. */
const built = new Map<string, Fixture>();

describe.each(dialects)('ingesting a hostile docs folder on %s', (dialect) => {
  let database: TestDatabase;
  let organizationId: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    organizationId = (await createOrganization(database.storage, { name: 'o' })).id;
  });
  afterAll(async () => {
    await database?.drop();
  });

  it.each(Object.keys(fixtures) as (keyof typeof fixtures)[])(
    'a %s folder: completes, indexes the rest, warns per entry, stores nothing from outside',
    async (kind) => {
      const fixture = built.get(kind) ?? fixtures[kind]();
      built.set(kind, fixture);
      const { storage } = database;
      const site = await createSite(storage, { organizationId, domain: `${kind}-${dialect}` });
      const result = await ingestSite(storage, site.id, fixture.root);
      const job = await getIngestionJob(storage, result.job.id);
      expect(job?.status).toBe('success');

      const pages = await storage.db.selectFrom('pages').selectAll().where('site_id', '=', site.id).execute();
      const chunks = await storage.db
        .selectFrom('chunks')
        .selectAll()
        .where('site_id', '=', site.id)
        .execute();
      expectContained(JSON.stringify({ pages, chunks, job }));
      expectWarned(job?.warnings ?? [], fixture.refused);
      // A refused `$ref` file is said once, with its reason, not also "not found".
      expect((job?.warnings ?? []).filter((w) => /^\$ref file .* not found$/.test(w.message))).toEqual([]);
      expect(pages.map((p) => p.path).sort()).toEqual([...fixture.indexed].sort());
      expect(chunks.map((c) => c.text).join('\n')).toContain('pineapples');
      expect(chunks.map((c) => c.text).join('\n')).toContain('mangoes');
    },
    20_000,
  );
});
