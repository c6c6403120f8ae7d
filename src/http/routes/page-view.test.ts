import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestSite } from '../../ingest/ingest-site.ts';
import { renderPageMarkdown } from '../../pages/page-markdown.ts';
import { renderPageHtml } from '../../pages/render-page-html.ts';
import { readStoredPage } from '../../pages/stored-page.ts';
import { bootstrapSite } from '../../tenancy/bootstrap-site.ts';
import { updateSite } from '../../tenancy/sites.ts';
import { dialects } from '../../testing/databases.ts';
import { corpusDir, repoRoot } from '../../testing/paths.ts';
import { startTestServer, type TestServer } from '../../testing/server.ts';
import { etagMatches, prefersMarkdown } from './page-view.ts';

function hostileDocs(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-hostile-page-'));
  fs.writeFileSync(
    path.join(dir, 'evil.md'),
    '# Evil\n\n## Run <b>this</b>\n\n<script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)>\n',
  );
  return dir;
}

describe.each(dialects)('GET /sites/{domain}/pages/{path} on %s', (dialect) => {
  let server: TestServer;
  let key = '';

  beforeAll(async () => {
    server = await startTestServer(dialect);
    key = (await bootstrapSite(server.storage, { domain: 'docs', docsDir: path.join(repoRoot, 'docs') }))
      .assistantKey;
    await bootstrapSite(server.storage, { domain: 'evil', docsDir: hostileDocs() });
    // A base URL of its own: its docs may be private, so Docent publishes its pages only when it is public.
    const docs = hostileDocs();
    await bootstrapSite(server.storage, {
      domain: 'private',
      docsDir: docs,
      baseUrl: 'https://docs.example.com',
    });
    const open = await bootstrapSite(server.storage, {
      domain: 'open',
      docsDir: docs,
      baseUrl: 'https://docs.example.com',
    });
    await updateSite(server.storage, open.site.id, { public: 1 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("opens every source an answer cites, at the cited section's anchor", async () => {
    const response = await fetch(`${server.baseUrl}/v2/assistant/docs/message`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        fp: 'a',
        messages: [
          { id: 'm', role: 'user', parts: [{ type: 'text', text: 'How do I run the CLI ingest command?' }] },
        ],
      }),
    });
    const urls = (await response.text())
      .split('\n\n')
      .filter((c) => c.startsWith('data: {'))
      .map((c) => JSON.parse(c.slice(6)))
      .filter((c) => c.type === 'source-url')
      .map((c) => String(c.url));
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) {
      const page = await fetch(url);
      expect(page.status, url).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const anchor = new URL(url).hash.slice(1);
      if (anchor) expect(await page.text(), url).toContain(`id="${anchor}"`);
    }
  });

  it('shows docs content as text: no markup from the docs survives', async () => {
    const page = await fetch(`${server.baseUrl}/sites/evil/pages/evil`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).not.toMatch(/<script|<img|<b>/);
    expect(html).toContain('<h1>Evil</h1>');
    // Whatever text the ingester keeps is escaped, never markup.
    const rendered = renderPageHtml(
      {
        path: 'x',
        title: '<i>T</i>',
        description: null,
        contentHash: 'h',
        sections: [{ anchor: 'a"b', headings: ['<b>H</b>'], text: '<script>alert(1)</script>' }],
      },
      { pagesBase: '/sites/x/pages/' },
    );
    expect(rendered).not.toMatch(/<script|<b>|<i>/);
    expect(rendered).toMatch(/(&lt;|&#x3C;)script(&gt;|>)alert\(1\)(&lt;|&#x3C;)\/script/);
    expect(rendered).toContain('id="a&quot;b"');
    const etag = page.headers.get('etag') ?? '';
    const again = await fetch(`${server.baseUrl}/sites/evil/pages/evil`, {
      headers: { 'If-None-Match': etag },
    });
    expect(again.status).toBe(304);
  });

  it('sends a page URL written with a trailing slash or its file extension to the page', async () => {
    for (const written of ['guides/cli/', 'guides/cli.mdx']) {
      const response = await fetch(`${server.baseUrl}/sites/docs/pages/${written}`, { redirect: 'manual' });
      expect(response.status, written).toBe(301);
      expect(response.headers.get('Location'), written).toBe('/sites/docs/pages/guides/cli');
    }
    const asking = await fetch(`${server.baseUrl}/sites/docs/pages/guides/cli/?assistant=keys`, {
      redirect: 'manual',
    });
    expect(asking.headers.get('Location')).toBe('/sites/docs/pages/guides/cli?assistant=keys');
    expect((await fetch(`${server.baseUrl}/sites/docs/pages/guides/nothing-here/`)).status).toBe(404);
  });

  it('answers 404 JSON for an unknown site or page', async () => {
    for (const url of ['/sites/nope/pages/evil', '/sites/evil/pages/missing', '/sites/evil/pages/../evil']) {
      const response = await fetch(`${server.baseUrl}${url}`);
      expect(response.status, url).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('publishes the pages of a site with a base URL only when it is public', async () => {
    const paths = ['pages/evil', 'pages/evil.md', 'llms.txt', 'llms-full.txt'];
    for (const p of paths) {
      const closed = await fetch(`${server.baseUrl}/sites/private/${p}`);
      expect(closed.status, p).toBe(404);
      const body = (await closed.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('not_found');
      expect(body.error.message).toBe(
        'Site private does not publish its pages here: it has a base URL of its own and is not public',
      );
      expect((await fetch(`${server.baseUrl}/sites/open/${p}`)).status, p).toBe(200);
    }
  });
});

function writeDocs(
  files: Record<string, string>,
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-md-')),
) {
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

const mdx = (title: string, body: string) =>
  `---\ntitle: ${title}\ndescription: About ${title}.\n---\n\n${body}\n`;
const acmeNavigation = (order: string[]) =>
  JSON.stringify({
    name: 'Acme',
    navigation: {
      groups: [
        { group: 'Guides', pages: order },
        { group: 'Staff', hidden: true, pages: ['internal'] },
      ],
    },
  });
const ACME_PAGES = {
  'keys.mdx': mdx('Keys', 'Create keys.\n\n## Rotate\n\nRotate them.'),
  'billing.mdx': mdx('Billing', 'Invoices monthly.'),
  'internal.mdx': mdx('Internal', 'Staff runbook.'),
};

/**
 * llmstxt.org's shape: `# ` first, then a `> ` summary, then only `## ` sections and
 * `- [title](absolute url)` lines with an optional `: description`. Returns the linked URLs.
 */
function checkLlmsTxt(text: string): string[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  expect(lines[0]).toMatch(/^# \S/);
  expect(lines[1]).toMatch(/^> \S/);
  const urls: string[] = [];
  for (const line of lines.slice(2)) {
    if (line.startsWith('## ')) continue;
    const link = /^- \[((?:[^\]\\]|\\.)+)\]\((https?:\/\/[^\s()]+)\)(?:: \S.*)?$/.exec(line);
    expect(link, line).not.toBeNull();
    if (link?.[2]) urls.push(link[2]);
  }
  return urls;
}

describe('Accept and If-None-Match', () => {
  it('serves Markdown only when Accept ranks it above HTML', () => {
    const markdown = [
      'text/markdown',
      'text/markdown, text/html',
      'text/markdown;q=0.9, text/html;q=0.8',
      'text/html;q=0.5, text/markdown',
      'text/plain, text/markdown, */*;q=0.1',
    ];
    const html = [
      undefined,
      '',
      '*/*',
      'text/*',
      'text/html, text/markdown',
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      'text/markdown;q=0, */*',
      'text/plain',
      'text/markdown;q=abc',
    ];
    for (const accept of markdown) expect(prefersMarkdown(accept), accept).toBe(true);
    for (const accept of html) expect(prefersMarkdown(accept), String(accept)).toBe(false);
  });

  it('matches a tag among several, weak or strong, and *', () => {
    expect(etagMatches('"a", W/"b"', '"b"')).toBe(true);
    expect(etagMatches('*', '"b"')).toBe(true);
    expect(etagMatches('"a"', '"b"')).toBe(false);
    expect(etagMatches(undefined, '"b"')).toBe(false);
  });
});

describe.each(dialects)('llms.txt and Markdown pages over HTTP on %s', (dialect) => {
  let server: TestServer;
  let acmeDir = '';
  let literalDir = '';
  let acmeId = '';

  beforeAll(async () => {
    server = await startTestServer(dialect);
    acmeDir = writeDocs({ 'docs.json': acmeNavigation(['keys', 'billing']), ...ACME_PAGES });
    acmeId = (await bootstrapSite(server.storage, { domain: 'acme', docsDir: acmeDir, siteName: 'Acme' }))
      .site.id;
    literalDir = writeDocs({ 'notes.md.md': '# Notes\n\nA page whose id ends in .md.' });
    await bootstrapSite(server.storage, { domain: 'literal', docsDir: literalDir });
  });
  afterAll(async () => {
    await server?.stop();
    for (const dir of [acmeDir, literalDir]) fs.rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}${url}`, { headers });

  it('serves llms.txt and llms-full.txt as cacheable text with absolute links to the request origin', async () => {
    for (const file of ['llms.txt', 'llms-full.txt']) {
      const response = await get(`/sites/acme/${file}`);
      expect(response.status, file).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=60');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const text = await response.text();
      expect(text.startsWith('# Acme\n\n> About Keys.\n')).toBe(true);
      expect(text).toContain(`${server.baseUrl}/sites/acme/pages/keys.md`);
      expect(text).not.toContain('Internal');
      const etag = response.headers.get('etag') ?? '';
      expect(etag).toMatch(/^".+"$/);
      const again = await get(`/sites/acme/${file}`, { 'If-None-Match': etag });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      const unknown = await get(`/sites/nope/${file}`);
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('serves each page as Markdown at {path}.md, with its own ETag and the llms.txt Link', async () => {
    const stored = await readStoredPage(server.storage, acmeId, 'keys');
    if (!stored) throw new Error('keys not stored');
    const response = await get('/sites/acme/pages/keys.md');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('link')).toBe(`<${server.baseUrl}/sites/acme/llms.txt>; rel="llms-txt"`);
    expect(await response.text()).toBe(renderPageMarkdown(stored));
    const etag = response.headers.get('etag') ?? '';
    expect(etag).toBe(`"${stored.contentHash}.md"`);
    expect((await get('/sites/acme/pages/keys.md', { 'If-None-Match': etag })).status).toBe(304);

    const html = await get('/sites/acme/pages/keys');
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('link')).toBe(`<${server.baseUrl}/sites/acme/llms.txt>; rel="llms-txt"`);
    expect(html.headers.get('vary')).toBe('Host, Accept');
    // The HTML's tag does not stand for the Markdown, or a cache would keep the wrong one.
    expect(
      (await get('/sites/acme/pages/keys.md', { 'If-None-Match': html.headers.get('etag') ?? '' })).status,
    ).toBe(200);
  });

  it('serves Markdown at the page URL when Accept prefers it', async () => {
    const markdown = await get('/sites/acme/pages/keys', { Accept: 'text/markdown, text/html;q=0.9' });
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(markdown.headers.get('vary')).toBe('Host, Accept');
    expect(await markdown.text()).toMatch(/^# Keys\n/);
    const etag = markdown.headers.get('etag') ?? '';
    const revalidated = await get('/sites/acme/pages/keys', {
      Accept: 'text/markdown',
      'If-None-Match': etag,
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('vary')).toBe('Host, Accept');
    const browser = await get('/sites/acme/pages/keys', {
      Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    });
    expect(browser.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // A browser holding the Markdown's tag gets the HTML, not a 304 for the wrong representation.
    expect((await get('/sites/acme/pages/keys', { 'If-None-Match': etag })).status).toBe(200);
  });

  it('answers 404 JSON for unknown sites and pages and for hidden pages, in either format', async () => {
    for (const url of [
      '/sites/nope/pages/keys.md',
      '/sites/acme/pages/missing.md',
      '/sites/acme/pages/internal.md',
      '/sites/acme/pages/internal',
      '/sites/acme/pages/.md',
    ]) {
      const response = await get(url, { Accept: 'text/markdown' });
      expect(response.status, url).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('finds a page whose own path ends in .md when no page has the path without it', async () => {
    const page = await get('/sites/literal/pages/notes.md');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<h1>Notes</h1>');
    const markdown = await get('/sites/literal/pages/notes.md.md');
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const listed = await (await get('/sites/literal/llms.txt')).text();
    expect(listed).toContain(`${server.baseUrl}/sites/literal/pages/notes.md.md)`);
  });

  it('reorders llms.txt and moves its ETag when only the navigation changes', async () => {
    const first = await get('/sites/acme/llms.txt');
    const etag = first.headers.get('etag') ?? '';
    const before = await first.text();
    expect(before.indexOf('[Keys]')).toBeLessThan(before.indexOf('[Billing]'));
    writeDocs({ 'docs.json': acmeNavigation(['billing', 'keys']) }, acmeDir);
    const result = await ingestSite(server.storage, acmeId, acmeDir);
    expect(result.counts).toMatchObject({ unchanged: 2, chunksWritten: 0 });
    const second = await get('/sites/acme/llms.txt', { 'If-None-Match': etag });
    expect(second.status).toBe(200);
    const text = await second.text();
    expect(text.indexOf('[Billing]')).toBeLessThan(text.indexOf('[Keys]'));
    expect(text).toContain('> About Billing.');
  });

  it.each(['ollama', 'mintlify-docs-2025-02-mintjson'])(
    "keeps to llms.txt's format on %s, every link a Markdown page",
    async (corpus) => {
      const domain = corpus.slice(0, 20).replace(/[^a-z0-9]+$/, '');
      await bootstrapSite(server.storage, { domain, docsDir: corpusDir(corpus) });
      const urls = checkLlmsTxt(await (await get(`/sites/${domain}/llms.txt`)).text());
      const pages = await server.storage.db
        .selectFrom('pages')
        .innerJoin('sites', 'sites.id', 'pages.site_id')
        .select('pages.path')
        .where('sites.domain', '=', domain)
        .execute();
      expect(urls).toHaveLength(pages.length);
      expect(new Set(urls).size).toBe(urls.length);
      for (const url of urls) {
        expect(url.startsWith(`${server.baseUrl}/sites/${domain}/pages/`), url).toBe(true);
        const response = await fetch(url);
        expect(response.status, url).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
        await response.arrayBuffer();
      }
      const full = await (await get(`/sites/${domain}/llms-full.txt`)).text();
      expect(full.match(/^Source: /gm)).toHaveLength(pages.length);
    },
    60_000,
  );
});
