import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPageHtml } from '../../pages/render-page-html.ts';
import { bootstrapSite } from '../../tenancy/bootstrap-site.ts';
import { dialects } from '../../testing/databases.ts';
import { repoRoot } from '../../testing/paths.ts';
import { startTestServer, type TestServer } from '../../testing/server.ts';

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
    const rendered = renderPageHtml({
      path: 'x',
      title: '<i>T</i>',
      description: null,
      contentHash: 'h',
      sections: [{ anchor: 'a"b', headings: ['<b>H</b>'], text: '<script>alert(1)</script>' }],
    });
    expect(rendered).not.toMatch(/<script|<b>|<i>/);
    expect(rendered).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(rendered).toContain('id="a&quot;b"');
    const etag = page.headers.get('etag') ?? '';
    const again = await fetch(`${server.baseUrl}/sites/evil/pages/evil`, {
      headers: { 'If-None-Match': etag },
    });
    expect(again.status).toBe(304);
  });

  it('answers 404 JSON for an unknown site or page', async () => {
    for (const url of ['/sites/nope/pages/evil', '/sites/evil/pages/missing', '/sites/evil/pages/../evil']) {
      const response = await fetch(`${server.baseUrl}${url}`);
      expect(response.status, url).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });
});
