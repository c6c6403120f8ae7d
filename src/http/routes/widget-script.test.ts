import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { listApiKeys } from '../../tenancy/api-keys.ts';
import { bootstrapSite } from '../../tenancy/bootstrap-site.ts';
import { DEMO_PAGE_KEY_NAME, mintDemoPageKey } from '../../tenancy/demo-page-key.ts';
import { createTestDatabase, type TestDatabase } from '../../testing/databases.ts';
import { smallDocs } from '../../testing/small-docs.ts';
import { createTestApp } from '../../testing/test-app.ts';
import { loadWidgetAssets, type WidgetAssets } from '../../widget-assets/widget-asset.ts';

describe('the widget script and the demo page', () => {
  let database: TestDatabase;
  const assets = loadWidgetAssets(inject('widgetDir'));
  if (!assets) throw new Error('the test run built no widget');
  const widget = assets.launcher;
  const [panelFile, panel] = [...assets.files].find(([name]) => name.startsWith('panel-')) ?? [];

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await database.drop();
  });

  const appWith = (deps: {
    widget?: WidgetAssets | null;
    demoPage?: { domain: string; key: string } | null;
  }) => createTestApp(database.storage, { ...deps });

  it('serves /widget.js compressed, revalidated by content hash, and /widget/<hash>.js forever', async () => {
    const app = appWith({ widget: assets });
    const plain = await app.request('/widget.js');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('Cache-Control')).toBe('public, max-age=300, stale-while-revalidate=86400');
    expect(plain.headers.get('ETag')).toBe(`W/"${widget.hash}"`);
    expect(plain.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(Buffer.from(await plain.arrayBuffer()).equals(widget.body)).toBe(true);

    const gzip = await app.request('/widget.js', { headers: { 'Accept-Encoding': 'gzip, deflate' } });
    expect(gzip.headers.get('Content-Encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gzip.arrayBuffer())).equals(widget.body)).toBe(true);
    const brotli = await app.request('/widget.js', { headers: { 'Accept-Encoding': 'gzip, br' } });
    expect(brotli.headers.get('Content-Encoding')).toBe('br');
    expect(brotliDecompressSync(Buffer.from(await brotli.arrayBuffer())).equals(widget.body)).toBe(true);

    const revalidated = await app.request('/widget.js', {
      headers: { 'If-None-Match': `W/"${widget.hash}"` },
    });
    expect(revalidated.status).toBe(304);
    const changed = await app.request('/widget.js', { headers: { 'If-None-Match': 'W/"0000000000000000"' } });
    expect(changed.status).toBe(200);

    const versioned = await app.request(`/widget/${widget.hash}.js`);
    expect(versioned.status).toBe(200);
    expect(versioned.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable');
    expect(panelFile).toMatch(/^panel-[0-9a-f]{16}\.js$/);
    const panelResponse = await app.request(`/widget/${panelFile}`);
    expect(panelResponse.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await panelResponse.arrayBuffer()).equals(panel?.body ?? Buffer.alloc(0))).toBe(true);
    // The launcher names the panel it loads.
    expect(widget.body.toString()).toContain(panelFile);
    expect(assets.panelFile).toBe(panelFile);
    const other = await app.request('/widget/other.js');
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it("sends a page running another build's launcher (cached or pinned) this build's files", async () => {
    const app = appWith({ widget: assets });
    for (const [asked, current] of [
      ['0123456789abcdef.js', `${widget.hash}.js`],
      ['panel-0123456789abcdef.js', panelFile],
    ] as const) {
      const response = await app.request(`/widget/${asked}`);
      expect(response.status, asked).toBe(302);
      expect(response.headers.get('Location')).toBe(current);
      // Not kept by any cache: the next build's file is asked for again.
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      const followed = await app.request(
        new URL(current ?? '', `http://docent.test/widget/${asked}`).pathname,
      );
      expect(followed.status).toBe(200);
    }
  });

  it('says how to build the widget when there is none, and has no demo page without one', async () => {
    expect(loadWidgetAssets('/nonexistent')).toBeNull();
    const app = appWith({ widget: null, demoPage: { domain: 'demo', key: 'svc_dsc_x' } });
    const response = await app.request('/widget.js');
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      'npm run build',
    );
    expect((await app.request('/')).status).toBe(404);
  });

  it('makes one live demo page key per start, and frames only the demo site’s pages', async () => {
    expect(await mintDemoPageKey(database.storage, 'demo')).toBeUndefined();
    const demo = await bootstrapSite(database.storage, { domain: 'demo', docsDir: smallDocs() });
    const other = await bootstrapSite(database.storage, { domain: 'other', docsDir: smallDocs() });
    const first = await mintDemoPageKey(database.storage, 'demo');
    const second = await mintDemoPageKey(database.storage, 'demo');
    const keys = await listApiKeys(database.storage, demo.organization.id, { kind: 'assistant' });
    const named = keys.filter((k) => k.name === DEMO_PAGE_KEY_NAME);
    expect(named).toHaveLength(2);
    const live = named.filter((k) => k.revoked_at === null);
    expect(live.map((k) => k.last_four)).toEqual([second?.slice(-4)]);
    expect(first).not.toBe(second);
    // The key printed at the first start still works: only demo page keys rotate.
    expect(keys.find((k) => k.name !== DEMO_PAGE_KEY_NAME)?.revoked_at).toBeNull();

    const app = appWith({ widget: assets, demoPage: { domain: 'demo', key: second ?? '' } });
    const home = await app.request('/');
    expect(home.status).toBe(302);
    expect(home.headers.get('Location')).toBe('/sites/demo/pages/keys');
    // `?assistant=` asks on the page it lands on: the query is kept.
    const asking = await app.request('/?assistant=how%20do%20I%20rotate%20a%20key');
    expect(asking.headers.get('Location')).toBe(
      '/sites/demo/pages/keys?assistant=how%20do%20I%20rotate%20a%20key',
    );
    const page = await app.request('/sites/demo/pages/keys');
    const html = await page.text();
    expect(html).toContain(`<script src="/widget/${widget.hash}.js" data-domain="demo" data-key="${second}"`);
    expect(html).toContain('<a href="/sites/demo/pages/billing">Billing</a>');
    expect(page.headers.get('Content-Security-Policy')).toContain("script-src 'self'; connect-src 'self'");
    // It holds the live key: never cached, and it names llms.txt like every other page view.
    expect(page.headers.get('Cache-Control')).toBe('no-cache');
    expect(page.headers.get('Link')).toMatch(/demo.*llms\.txt>; rel="llms-txt"$/);
    const plain = await (await app.request('/sites/other/pages/keys')).text();
    expect(plain).not.toContain('<script');
    expect(plain).not.toContain(other.assistantKey);
  });
});
