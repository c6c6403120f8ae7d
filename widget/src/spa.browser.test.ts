import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinAnswerer } from '../../src/assistant/builtin-answerer.ts';
import { bootstrapSite } from '../../src/tenancy/bootstrap-site.ts';
import { type HostPages, launchChromium, startHostPages } from '../../src/testing/browser.ts';
import { repoRoot } from '../../src/testing/paths.ts';
import { startTestServer, type TestServer } from '../../src/testing/server.ts';
import { testChromiumPath } from '../../src/testing/services.ts';

/** The widget on a docs site that is a single-page app (Docusaurus, VitePress, Starlight, MkDocs Material). */

const chromiumPath = testChromiumPath();
const shots = '/tmp/qa-spa-shots';

/** A page that navigates as an SPA: pushState, a re-rendered root, `<html lang>` per page, the tag again. */
function spaPage(docentUrl: string, key: string, extraHead = ''): string {
  const tag = `<script src="${docentUrl}/widget.js" data-domain="docs" data-key="${key}" defer></script>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>SPA docs</title>
<style>body{margin:0;font:16px sans-serif}.navbar{position:fixed;top:0;left:0;right:0;height:60px;z-index:9999;background:#223;color:#fff}
.cookie{position:fixed;left:0;right:0;bottom:0;height:90px;z-index:100000;background:#fc0}#root{padding:80px 20px}
html.dark body,[data-theme=dark] body{background:#111;color:#eee}</style>${extraHead}</head>
<body><nav class="navbar"><a id="go" href="/spa/fr/guide">Guide</a> <button id="search">Search Ctrl K</button></nav>
<div id="root"><main><h1>Intro</h1><p id="t">Some documentation text to read and select.</p><button id="focusme">Focus me</button></main></div>
<div class="cookie">We use cookies</div>
<div id="search-modal" hidden style="position:fixed;inset:0;z-index:200;background:rgba(0,0,0,.5)"><input aria-label="Search docs" style="margin:100px"></div>
${tag}
<script>
  function render(p) {
    document.documentElement.lang = p.includes('/fr/') ? 'fr' : 'en';
    document.title = p;
    document.getElementById('root').innerHTML = '<main><h1>' + p + '</h1><p id="t">Text of the page ' + p + ' to select here.</p><button id="focusme">Focus me</button></main>';
    const again = document.createElement('div');
    again.innerHTML = ${JSON.stringify(tag).replace(/</g, '\\u003c')};
    const s = document.createElement('script');
    for (const a of again.firstChild.attributes) s.setAttribute(a.name, a.value);
    document.body.append(s);
  }
  window.nav = (p) => { history.pushState({}, '', p); render(p); };
  addEventListener('popstate', () => render(location.pathname));
  document.getElementById('go').addEventListener('click', (e) => { e.preventDefault(); nav('/spa/fr/guide'); });
  window.searchOpens = 0;
  // The framework's own search (DocSearch): Ctrl+K opens a modal, Escape closes it, both heard on window.
  window.addEventListener('keydown', (e) => {
    const modal = document.getElementById('search-modal');
    if ((e.ctrlKey || e.metaKey) && e.key === 'k') { e.preventDefault(); searchOpens++; document.body.style.overflow = 'hidden'; modal.hidden = false; modal.querySelector('input').focus(); }
    else if (e.key === 'Escape' && !modal.hidden) { modal.hidden = true; document.body.style.overflow = ''; }
  });
</script></body></html>`;
}

describe.skipIf(chromiumPath === null)('the widget on a single-page docs site', () => {
  let browser: Browser;
  let server: TestServer;
  let host: HostPages;
  let key = '';

  beforeAll(async () => {
    browser = await launchChromium(chromiumPath ?? '');
    server = await startTestServer('sqlite', {
      modelProvider: ({ sources, context }) => new BuiltinAnswerer({ sources, context }),
    });
    key = (await bootstrapSite(server.storage, { domain: 'docs', docsDir: path.join(repoRoot, 'docs') }))
      .assistantKey;
    host = await startHostPages();
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await server?.stop();
  });

  async function waitForAnswer(page: Page, n: number) {
    await expect.poll(() => page.locator('docent-assistant .answer').count(), { timeout: 30_000 }).toBe(n);
    await expect
      .poll(() => page.locator('docent-assistant .log').getAttribute('aria-busy'), { timeout: 30_000 })
      .toBe('false');
  }

  it('asks with the page the reader is on now and its language, in one conversation, from one widget', async () => {
    host.set('/spa/intro', spaPage(server.baseUrl, key));
    host.set('/spa/fr/guide', spaPage(server.baseUrl, key));
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const sent: { currentPath?: string; filter?: unknown; threadId?: string; context?: unknown }[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/message')) sent.push(r.postDataJSON());
    });
    await page.goto(`${host.origin}/spa/intro`);
    await expect.poll(() => page.locator('docent-assistant .launcher').isVisible()).toBe(true);
    await page.keyboard.press('Control+i');
    const input = page.getByRole('textbox', { name: 'Your question' });
    await input.fill('How do I ingest my docs?');
    await input.press('Enter');
    await waitForAnswer(page, 1);
    await page.keyboard.press('Escape');
    // The router: pushState, a new page rendered in the root, `<html lang="fr">`, the script tag again.
    await page.click('#go');
    await page.keyboard.press('Control+i');
    await input.fill('And the CLI?');
    await input.press('Enter');
    await waitForAnswer(page, 2);
    await page.keyboard.press('Escape');
    // Back (popstate), then "Ask about this" on a selection of the re-rendered page.
    await page.goBack();
    await page.locator('#t').selectText();
    await page.locator('#t').dispatchEvent('mouseup');
    await page.locator('docent-assistant .ask-selection').click();
    await input.fill('What is this?');
    await input.press('Enter');
    await waitForAnswer(page, 3);
    expect(sent.map((s) => [s.currentPath, s.filter])).toEqual([
      ['spa/intro', { language: 'en' }],
      ['spa/fr/guide', { language: 'fr' }],
      ['spa/intro', { language: 'en' }],
    ]);
    expect(sent[1]?.threadId).toBeTruthy();
    expect(sent[2]?.threadId).toBe(sent[1]?.threadId);
    expect(sent[2]?.context).toEqual([
      { type: 'textSelection', value: 'Text of the page /spa/intro to select here.', path: 'spa/intro' },
    ]);
    // The framework's own Ctrl+K search and the widget's Ctrl+I each do their own.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+k');
    await page.keyboard.press('Control+i');
    expect(await page.evaluate('searchOpens')).toBe(1);
    expect(await page.getByRole('dialog').isVisible()).toBe(true);
    // Focus goes back to the launcher when the element focused before opening was re-rendered away.
    await page.keyboard.press('Escape');
    await page.focus('#focusme');
    await page.keyboard.press('Control+i');
    await page.evaluate(`nav('/spa/intro')`);
    await page.keyboard.press('Escape');
    expect(
      await page.evaluate(`document.querySelector('docent-assistant').shadowRoot.activeElement?.className`),
    ).toBe('launcher');
    expect(await page.locator('docent-assistant').count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("leaves Escape to the framework's own search modal opened over the panel", async () => {
    host.set('/spa/intro', spaPage(server.baseUrl, key));
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${host.origin}/spa/intro`);
    await expect.poll(() => page.locator('docent-assistant .launcher').isVisible()).toBe(true);
    await page.keyboard.press('Control+i');
    await expect.poll(() => page.getByRole('dialog').isVisible()).toBe(true);
    // From the question box, the site's Ctrl+K search opens over the panel, its input focused.
    await page.keyboard.press('Control+k');
    expect(await page.locator('#search-modal').isVisible()).toBe(true);
    await page.screenshot({ path: `${shots}/search-over-panel.png` });
    // Escape closes the search the reader is in, and the panel stays; a second Escape… is the page's.
    // Before: the widget closed its panel and stopped the key, and the search modal stayed open.
    await page.keyboard.press('Escape');
    expect(await page.locator('#search-modal').isVisible()).toBe(false);
    expect(await page.getByRole('dialog').isVisible()).toBe(true);
    await context.close();
  });

  it('comes back when a router renders the body anew and runs the script tag again', async () => {
    host.set('/spa/intro', spaPage(server.baseUrl, key));
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${host.origin}/spa/intro`);
    await expect.poll(() => page.locator('docent-assistant .launcher').isVisible()).toBe(true);
    await page.evaluate(`(() => {
      history.pushState({}, '', '/spa/other');
      const tag = document.querySelector('script[data-domain]');
      document.body.innerHTML = '<main><h1>Other</h1></main>';
      const again = document.createElement('script');
      for (const a of tag.attributes) again.setAttribute(a.name, a.value);
      document.body.append(again);
    })()`);
    // Before: the page's body took the widget, and the tag run again did nothing (“on this page twice”).
    await expect.poll(() => page.locator('docent-assistant .launcher').isVisible()).toBe(true);
    expect(await page.locator('docent-assistant').count()).toBe(1);
    await page.keyboard.press('Control+i');
    await expect.poll(() => page.getByRole('dialog').isVisible()).toBe(true);
    await context.close();
  });

  it('stays above a fixed navbar and a cookie banner, on a 360-px phone and at 200% zoom', async () => {
    host.set('/spa/intro', spaPage(server.baseUrl, key));
    for (const [name, options, viewport] of [
      ['desktop', { viewport: { width: 1280, height: 800 } }, { width: 1280, height: 800 }],
      [
        'phone',
        { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true },
        { width: 360, height: 740 },
      ],
      // 200% zoom of a 1280×800 window: 640×400 CSS pixels.
      [
        'zoom200',
        { viewport: { width: 640, height: 400 }, deviceScaleFactor: 2 },
        { width: 640, height: 400 },
      ],
    ] as const) {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      await page.goto(`${host.origin}/spa/intro`);
      await expect.poll(() => page.locator('docent-assistant .launcher').isVisible()).toBe(true);
      const onTop = (selector: string) =>
        page.evaluate(`(() => {
          const b = document.querySelector('docent-assistant').shadowRoot.querySelector('${selector}').getBoundingClientRect();
          return [[b.left + Math.min(b.height / 2, 16), b.top + Math.min(b.height / 2, 16)], [b.right - 16, b.bottom - Math.min(b.height / 2, 16)]].map(([x, y]) => document.elementFromPoint(x, y)?.tagName);
        })()`);
      // The launcher sits over the cookie banner (z-index 100000), clickable.
      expect(await onTop('.launcher'), name).toEqual(['DOCENT-ASSISTANT', 'DOCENT-ASSISTANT']);
      await page.screenshot({ path: `${shots}/${name}-launcher.png` });
      await page.locator('docent-assistant .launcher').click();
      await expect.poll(() => page.getByRole('dialog').isVisible()).toBe(true);
      // The panel's corners over the navbar and the banner; the whole screen on a phone and zoomed in.
      expect(await onTop('.panel'), name).toEqual(['DOCENT-ASSISTANT', 'DOCENT-ASSISTANT']);
      const panel = await page.locator('docent-assistant .panel').boundingBox();
      if (name === 'desktop') expect(panel?.width).toBe(440);
      else expect(panel).toEqual({ x: 0, y: 0, ...viewport });
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(viewport.width);
      await page.screenshot({ path: `${shots}/${name}-panel.png` });
      await context.close();
    }
  });

  it("follows the page's own dark mode switch, else the reader's prefers-color-scheme", async () => {
    host.set('/spa/intro', spaPage(server.baseUrl, key));
    const background = (page: Page) =>
      page.evaluate(
        `getComputedStyle(document.querySelector('docent-assistant').shadowRoot.querySelector('.launcher')).backgroundColor`,
      );
    const light = 'rgb(37, 87, 214)';
    const dark = 'rgb(122, 162, 255)';
    for (const [colorScheme, set, expected] of [
      ['light', '', light],
      ['dark', '', dark],
      // Docusaurus, Starlight: <html data-theme>; VitePress: <html class="dark">; MkDocs Material.
      ['light', `document.documentElement.dataset.theme = 'dark'`, dark],
      ['dark', `document.documentElement.dataset.theme = 'light'`, light],
      ['light', `document.documentElement.classList.add('dark')`, dark],
      ['light', `document.body.dataset.mdColorScheme = 'slate'`, dark],
      ['dark', `document.body.dataset.mdColorScheme = 'default'`, light],
    ] as const) {
      const context = await browser.newContext({ colorScheme });
      const page = await context.newPage();
      await page.goto(`${host.origin}/spa/intro`);
      await expect.poll(() => page.locator('docent-assistant .launcher').isVisible()).toBe(true);
      // The reader flips the site's switch after the widget is on the page.
      if (set) await page.evaluate(set);
      // Before: only prefers-color-scheme counted, a light panel on a site switched to dark.
      await expect.poll(() => background(page), { message: `${colorScheme} ${set}` }).toBe(expected);
      if (set === `document.documentElement.classList.add('dark')`) {
        await page.locator('docent-assistant .launcher').click();
        await expect.poll(() => page.getByRole('dialog').isVisible()).toBe(true);
        await page.screenshot({ path: `${shots}/vitepress-dark.png` });
        await page.evaluate(`document.documentElement.classList.remove('dark')`);
        await expect.poll(() => background(page)).toBe(light);
      }
      await context.close();
    }
  });
  it("does not open inert behind the page's own modal <dialog> search (Starlight)", async () => {
    host.set(
      '/spa/dialog',
      spaPage(server.baseUrl, key).replace(
        '</body>',
        `<dialog id="sl"><input aria-label="Starlight search"></dialog><script>addEventListener('keydown', (e) => { if (e.ctrlKey && e.key === 'k') document.getElementById('sl').showModal(); });</script></body>`,
      ),
    );
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${host.origin}/spa/dialog`);
    await expect.poll(() => page.locator('docent-assistant .launcher').isVisible()).toBe(true);
    await page.keyboard.press('Control+k');
    await page.keyboard.press('Control+i');
    await page.waitForTimeout(500);
    // Before: the panel opened behind the dialog's backdrop, greyed and unusable, focus left in the search.
    expect(await page.getByRole('dialog', { name: 'Ask Docent' }).isVisible()).toBe(false);
    // Once the reader closes the site's search, Ctrl+I opens the panel.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+i');
    await expect.poll(() => page.getByRole('dialog', { name: 'Ask Docent' }).isVisible()).toBe(true);
    await context.close();
  });
});
