import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestSite } from '../ingest/ingest-site.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite, type Site } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { liveMarkup } from '../testing/live-markup.ts';
import {
  generateLlmsFullTxt,
  generateLlmsTxt,
  type LlmsTemplate,
  type LlmsText,
  pageMarkdownUrl,
  readLlmsFullTemplate,
  renderLlmsText,
} from './llms-txt.ts';
import { renderPageMarkdown } from './page-markdown.ts';
import { readStoredPage } from './stored-page.ts';

const DOCENT = 'https://docent.example.com/';
const BASE = 'https://docent.example.com/sites';

const page = (title: string, description: string | null, body: string) =>
  `---\ntitle: ${title}\n${description ? `description: ${description}\n` : ''}---\n\n${body}\n`;

/** A docs.json site: two tabs, a nested group, a group name used twice, a hidden group. */
const NAVIGATION = {
  tabs: [
    {
      tab: 'Guides',
      groups: [
        { group: 'Get started', pages: ['index', 'quickstart'] },
        {
          group: 'Guides',
          pages: ['guides/keys', { group: 'Advanced', pages: ['guides/rotate'] }, 'guides/billing'],
        },
        { group: 'Internal', hidden: true, pages: ['internal'] },
      ],
    },
    {
      tab: 'API',
      pages: ['api/overview', 'quickstart'],
      groups: [{ group: 'Get started', pages: ['api/auth'] }],
    },
  ],
};

const PAGES: Record<string, string> = {
  index: page('Welcome', 'Acme keeps your API keys safe.', 'Acme stores keys.\n\n## Why Acme\n\nBecause.'),
  quickstart: page('Quickstart', 'Install Acme in five minutes.', 'Run `acme init`.'),
  'guides/keys': page('API keys [beta]', 'Create\n  and list keys.', '## Create\n\n`acme keys create`'),
  'guides/rotate': page('Rotate keys', 'Rotate a key without downtime.', 'Run `acme keys rotate`.'),
  'guides/billing': page('Billing', null, 'Invoices arrive monthly.'),
  internal: page('Internal', 'Staff only.', 'Secret runbook.'),
  'api/overview': page('API overview', null, 'The API is REST.'),
  'api/auth': page('Authentication', 'Bearer tokens.', 'Send `Authorization: Bearer …`.'),
};

function writeDocs(dir: string, files: Record<string, string>): void {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
}

function mdxFiles(pages: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(pages).map(([id, text]) => [`${id}.mdx`, text]));
}

describe.each(dialects)('llms.txt and llms-full.txt on %s', (dialect) => {
  let database: TestDatabase;
  let organizationId: string;
  const dirs: string[] = [];

  async function site(domain: string, files: Record<string, string>): Promise<{ site: Site; dir: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-llms-'));
    dirs.push(dir);
    writeDocs(dir, files);
    const created = await createSite(database.storage, { organizationId, domain, name: 'Acme' });
    await ingestSite(database.storage, created.id, dir);
    return { site: created, dir };
  }

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    organizationId = (await createOrganization(database.storage, { name: 'acme' })).id;
  });
  afterAll(async () => {
    await database?.drop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists pages by navigation group, in navigation order, each once, linking their Markdown', async () => {
    const { site: acme } = await site('acme', {
      'docs.json': JSON.stringify({ name: 'Acme', navigation: NAVIGATION }),
      ...mdxFiles(PAGES),
    });
    const generated = await generateLlmsTxt(database.storage, acme, DOCENT);
    expect(generated?.text).toBe(
      [
        '# Acme',
        '',
        '> Acme keeps your API keys safe.',
        '',
        '## Get started',
        '',
        `- [Welcome](${BASE}/acme/pages/index.md): Acme keeps your API keys safe.`,
        `- [Quickstart](${BASE}/acme/pages/quickstart.md): Install Acme in five minutes.`,
        `- [Authentication](${BASE}/acme/pages/api/auth.md): Bearer tokens.`,
        '',
        '## Guides',
        '',
        `- [API keys \\[beta\\]](${BASE}/acme/pages/guides/keys.md): Create and list keys.`,
        `- [Billing](${BASE}/acme/pages/guides/billing.md)`,
        '',
        '## Advanced',
        '',
        `- [Rotate keys](${BASE}/acme/pages/guides/rotate.md): Rotate a key without downtime.`,
        '',
        // Listed by the navigation outside any group: a section of its own, where it comes.
        '## Pages',
        '',
        `- [API overview](${BASE}/acme/pages/api/overview.md)`,
        '',
      ].join('\n'),
    );
    expect(generated).toMatchObject({ pages: 7, total: 7, cut: false });
    expect(generated?.text).not.toContain('Internal');
  });

  it('says what the file is when no page describes the site, counting its pages', async () => {
    const { site: one } = await site('one', { 'notes.md': '# Notes\n\nText.' });
    expect((await generateLlmsTxt(database.storage, one, DOCENT))?.text).toMatch(
      /^# Acme\n\n> The Acme documentation: 1 page, each linked as Markdown\.\n/,
    );
    const { site: two } = await site('two', { 'a.md': '# A\n\nText.', 'b.md': '# B\n\nText.' });
    expect((await generateLlmsTxt(database.storage, two, DOCENT))?.text).toContain(
      '> The Acme documentation: 2 pages, each linked as Markdown.',
    );
  });

  it('lists a plain folder by path, with encoded links and the README as summary', async () => {
    const { site: plain } = await site('plain', {
      'README.md': page('Welcome', 'A plain folder of notes.', 'Start here.'),
      'b.md': '# Bee\n\nBuzz.',
      'a b.md': '# With a space\n\nText.',
      'Zeta.md': '# Zeta\n\nLast letter, first in code-unit order.',
      'guide/(beta).md': '# Beta [draft]\n\nSoon.',
    });
    const generated = await generateLlmsTxt(database.storage, plain, 'http://localhost:3000');
    const base = 'http://localhost:3000/sites/plain/pages';
    expect(generated?.text).toBe(
      [
        '# Acme',
        '',
        '> A plain folder of notes.',
        '',
        '## Pages',
        '',
        `- [Welcome](${base}/README.md): A plain folder of notes.`,
        `- [Zeta](${base}/Zeta.md)`,
        `- [With a space](${base}/a%20b.md)`,
        `- [Bee](${base}/b.md)`,
        `- [Beta \\[draft\\]](${base}/guide/%28beta%29.md)`,
        '',
      ].join('\n'),
    );
  });

  it('cuts a long summary between characters, never inside one (𠮷, an emoji)', async () => {
    const description = `${'吉'.repeat(498)}𠮷野家${'吉'.repeat(100)}`;
    const { site: long } = await site('long-summary', {
      'README.md': page('ようこそ', description, '本文。'),
    });
    const generated = await generateLlmsTxt(database.storage, long, 'http://localhost:3000');
    const summary = generated?.text.split('\n')[2] ?? '';
    expect(summary).toBe(`> ${'吉'.repeat(498)}…`);
    expect(Buffer.from(generated?.text ?? '').toString()).not.toContain('\uFFFD');
  });

  it('follows a navigation change that leaves every page unchanged', async () => {
    const files = mdxFiles({ one: page('One', null, '1'), two: page('Two', null, '2') });
    const docs = (pages: string[]) => JSON.stringify({ navigation: { groups: [{ group: 'G', pages }] } });
    const { site: moving, dir } = await site('moving', { 'docs.json': docs(['one', 'two']), ...files });
    const titles = async () =>
      [
        ...((await generateLlmsTxt(database.storage, moving, DOCENT))?.text ?? '').matchAll(/- \[(\w+)\]/g),
      ].map((m) => m[1]);
    expect(await titles()).toEqual(['One', 'Two']);
    const before = await generateLlmsTxt(database.storage, moving, DOCENT);

    writeDocs(dir, { 'docs.json': docs(['two', 'one']), ...files });
    const result = await ingestSite(database.storage, moving.id, dir);
    expect(result.counts).toMatchObject({ unchanged: 2, chunksWritten: 0 });
    expect(await titles()).toEqual(['Two', 'One']);
    const after = await generateLlmsTxt(database.storage, moving, DOCENT);
    // The generation (the route's ETag) moves with it, so no cache keeps the old order.
    expect(after?.generation).toBeGreaterThan(before?.generation ?? Number.POSITIVE_INFINITY);
  });

  it("writes every page's Markdown in llms.txt's order, and cuts at the byte limit", async () => {
    const { site: full } = await site('full', {
      'docs.json': JSON.stringify({ name: 'Acme', navigation: NAVIGATION }),
      ...mdxFiles(PAGES),
    });
    const order = ['index', 'quickstart', 'api/auth', 'guides/keys', 'guides/billing', 'guides/rotate'];
    const blocks: string[] = [];
    for (const id of [...order, 'api/overview']) {
      const stored = await readStoredPage(database.storage, full.id, id);
      if (!stored) throw new Error(`page ${id} not stored`);
      blocks.push(`\nSource: ${pageMarkdownUrl(DOCENT, 'full', id)}\n\n${renderPageMarkdown(stored)}`);
    }
    const header = '# Acme\n\n> Acme keeps your API keys safe.\n';
    const generated = await generateLlmsFullTxt(database.storage, full, DOCENT);
    expect(generated?.text).toBe(header + blocks.join(''));
    expect(generated?.text).toContain(
      '\nSource: https://docent.example.com/sites/full/pages/index.md\n\n# Welcome\n',
    );
    expect(generated?.text).toContain('## Why Acme\n\nBecause.');
    expect(generated).toMatchObject({ pages: 7, total: 7, cut: false });

    // Room for the header, two pages and the closing line's reserve, but not the third page.
    const room = Buffer.byteLength(header + (blocks[0] ?? '') + (blocks[1] ?? ''), 'utf8') + 256;
    const maxBytes = room + Math.floor(Buffer.byteLength(blocks[2] ?? '', 'utf8') / 2);
    const cut = (await generateLlmsFullTxt(database.storage, full, DOCENT, { maxBytes })) as LlmsText;
    expect(cut).toMatchObject({ pages: 2, total: 7, cut: true });
    expect(cut.text.startsWith(header + (blocks[0] ?? '') + (blocks[1] ?? ''))).toBe(true);
    expect(
      cut.text.endsWith(
        `\nThis file was cut at its ${maxBytes.toLocaleString('en-US')}-byte limit: 2 of 7 pages included.\n`,
      ),
    ).toBe(true);
    expect(Buffer.byteLength(cut.text, 'utf8')).toBeLessThanOrEqual(maxBytes);

    const listed = (await generateLlmsTxt(database.storage, full, DOCENT, { maxBytes: 600 })) as LlmsText;
    expect(listed.cut).toBe(true);
    expect(Buffer.byteLength(listed.text, 'utf8')).toBeLessThanOrEqual(600);
    expect(listed.text).toMatch(/pages listed\.\n$/);
  });

  it("makes any address's text from one read, cut where that address's links no longer fit", async () => {
    const { site: shared } = await site('shared', {
      'docs.json': JSON.stringify({ name: 'Acme', navigation: NAVIGATION }),
      ...mdxFiles(PAGES),
    });
    const order = ['index', 'quickstart', 'api/auth', 'guides/keys', 'guides/billing', 'guides/rotate'];
    const blocksFor = async (url: string) => {
      const blocks: string[] = [];
      for (const id of [...order, 'api/overview']) {
        const stored = await readStoredPage(database.storage, shared.id, id);
        if (!stored) throw new Error(`page ${id} not stored`);
        blocks.push(`\nSource: ${pageMarkdownUrl(url, 'shared', id)}\n\n${renderPageMarkdown(stored)}`);
      }
      return blocks;
    };
    const header = '# Acme\n\n> Acme keeps your API keys safe.\n';
    const long = `https://${'docs-'.repeat(6)}example.com:8443`;
    const short = await blocksFor(DOCENT);
    const longer = await blocksFor(long);
    // Room for three pages behind the short address; behind the long one (30 more bytes a link), two.
    const maxBytes = Buffer.byteLength(header + short.slice(0, 3).join(''), 'utf8') + 256;
    const template = (await readLlmsFullTemplate(database.storage, shared, { maxBytes })) as LlmsTemplate;
    const notice = (pages: number) =>
      `\nThis file was cut at its ${maxBytes.toLocaleString('en-US')}-byte limit: ${pages} of 7 pages included.\n`;

    const forShort = renderLlmsText(template, DOCENT);
    expect(forShort).toMatchObject({ pages: 3, total: 7, cut: true });
    expect(forShort.text).toBe(header + short.slice(0, 3).join('') + notice(3));
    const forLong = renderLlmsText(template, long);
    expect(forLong).toMatchObject({ pages: 2, total: 7, cut: true });
    expect(forLong.text).toBe(header + longer.slice(0, 2).join('') + notice(2));
    expect(Buffer.byteLength(forLong.text, 'utf8')).toBeLessThanOrEqual(maxBytes);
    // Without a limit in the way, every address gets every page.
    const whole = (await readLlmsFullTemplate(database.storage, shared)) as LlmsTemplate;
    expect(renderLlmsText(whole, long).text).toBe(header + longer.join(''));
  });

  it('lists a title or description with markup in it as text: no link, image or HTML', async () => {
    const { site: hostile } = await site('hostile', {
      'index.md': page(
        '"Home <img src=x onerror=alert(1)>"',
        '"[desc](javascript:alert(2)) ![p](https://tracker.example/p.gif)"',
        'Text.',
      ),
    });
    const generated = await generateLlmsTxt(database.storage, hostile, DOCENT);
    // Only its own links, to the pages' Markdown.
    expect(liveMarkup(generated?.text ?? '')).toEqual([`link ${BASE}/hostile/pages/index.md`]);
    expect(generated?.text).toContain('- [Home \\<img src=x onerror=alert(1)>](');
    const full = await generateLlmsFullTxt(database.storage, hostile, DOCENT);
    expect(liveMarkup(full?.text ?? '')).toEqual([]);
  });

  it('is undefined for a site that does not exist', async () => {
    const ghost = { id: 'site_missing', domain: 'ghost', name: 'Ghost' };
    expect(await generateLlmsTxt(database.storage, ghost, DOCENT)).toBeUndefined();
    expect(await generateLlmsFullTxt(database.storage, ghost, DOCENT)).toBeUndefined();
  });
});
