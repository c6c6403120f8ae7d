import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapSite } from '../tenancy/bootstrap-site.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { readPageMarkdown } from './read-page.ts';

const PAGES: Record<string, string> = {
  'a.md': '# A\n\nThe page a.\n',
  'a#b.md': '# Hash\n\nA path with a hash.\n',
  'q?x.md': '# Query\n\nA path with a question mark.\n',
  'guides/cli.md': '# CLI\n\nThe command line.\n',
  'notes.md.md': '# Notes\n\nA page whose own path ends in .md.\n',
  'index.md': '# Home\n\nWelcome.\n',
};

describe.each(dialects)('readPageMarkdown on %s', (dialect) => {
  let database: TestDatabase;
  let docsDir = '';
  let siteId = '';

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    docsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-read-page-'));
    for (const [file, text] of Object.entries(PAGES)) {
      fs.mkdirSync(path.dirname(path.join(docsDir, file)), { recursive: true });
      fs.writeFileSync(path.join(docsDir, file), text);
    }
    siteId = (await bootstrapSite(database.storage, { domain: 'docs', docsDir })).site.id;
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(docsDir, { recursive: true, force: true });
  });

  const read = async (requested: string) =>
    (await readPageMarkdown(database.storage, siteId, requested))?.path;

  // Found by QA: the path search gives for a page named with `?` or `#` was read as a URL's query or
  // anchor, and a final `.md` as an extension, so get_page and POST /v1/page answered "No page" for it
  // (or gave another page).
  it('reads a page whose own path holds ? or #, by the path search gives', async () => {
    expect(await read('a#b')).toBe('a#b');
    expect(await read('q?x')).toBe('q?x');
    expect(await read('/a#b.md')).toBe('a#b');
    // And one whose own path ends in .md, when no page has the path without it (as the page view does).
    expect(await read('notes.md')).toBe('notes.md');
  });

  it('still takes the written forms of a path: slashes, extension, query and anchor', async () => {
    expect(await read('guides/cli')).toBe('guides/cli');
    expect(await read('/guides/cli/')).toBe('guides/cli');
    expect(await read('guides/cli.mdx')).toBe('guides/cli');
    expect(await read('guides/cli#install')).toBe('guides/cli');
    expect(await read('/guides/cli.md?ref=x')).toBe('guides/cli');
    expect(await read('a#c')).toBe('a');
    expect(await read('/')).toBe('index');
    expect(await read('missing')).toBeUndefined();
    expect(await read('#')).toBeUndefined();
  });
});
