import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinAnswerer } from '../../src/assistant/builtin-answerer.ts';
import { createTenant } from '../../src/limits/limits-fixtures.ts';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { bootstrapSite } from '../../src/tenancy/bootstrap-site.ts';
import { getSiteByDomain } from '../../src/tenancy/sites.ts';
import { type HostPages, hostPage, launchChromium, startHostPages } from '../../src/testing/browser.ts';
import { dialects } from '../../src/testing/databases.ts';
import { scriptedModelStream } from '../../src/testing/model-streams.ts';
import { repoRoot } from '../../src/testing/paths.ts';
import { startTestServer, type TestServer } from '../../src/testing/server.ts';
import { testChromiumPath } from '../../src/testing/services.ts';
import { smallDocs } from '../../src/testing/small-docs.ts';

/**
 * The widget in a real Chromium (Debian's, driven by playwright-core) against a real Docent server:
 * what a reader does on the demo page and on a docs site of another origin that embeds `widget.js`.
 */

const chromiumPath = testChromiumPath();
const bundledDocs = path.join(repoRoot, 'docs');
const screenshots = path.join(repoRoot, 'docs', 'images');
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A model's answer with every way Markdown could run script or load something, and some harmless HTML. */
const HOSTILE_MARKDOWN = `Here is how to ingest [1].

<script>window.__pwned = 'script'</script>
<img src="http://evil.example/x.png" onerror="window.__pwned = 'img'">
[click me](javascript:window.__pwned='link') and [data](data:text/html,hello) and [proto](//evil.example/p)
![tracker](http://evil.example/track.png)
<iframe src="http://evil.example/frame"></iframe>
<a href="javascript:window.__pwned='raw-link'">raw link</a>
<style>body { display: none }</style>
<svg onload="window.__pwned = 'svg'"></svg>
<form action="http://evil.example/"><input name="q"></form>
\`<b>inline code</b>\`

| a | b |
|---|---|
| <img src=x onerror="window.__pwned = 'table'"> | 2 |

\`\`\`html
<script>window.__pwned = 'code'</script>
\`\`\`
`;

/** An Arabic answer with code in it and a citation of two sources, written slowly (a delta every 100 ms). */
const RTL_CODE_MARKDOWN =
  'شغّل الأمر التالي [1, 2]:\n\n```bash\ncd ..\nnpm start;\n```\n\nثم `(cd ..)` للعودة.';

/** Docs with raw HTML in them, ingested as a docs folder would be. */
function rawHtmlDocs(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-raw-html-'));
  fs.writeFileSync(
    path.join(dir, 'frobnicator.md'),
    '# Frobnicator setup\n\n<img src="http://evil.example/x.png" onerror="window.__pwned = \'docs\'">\n\nSetting up the frobnicator requires the frob key from the settings page.\n\n<script>window.__pwned = \'docs-script\'</script>\n',
  );
  return dir;
}

/** Slow enough to stop or reload halfway: a delta every 250 ms. */
const SLOW_DELTA_MS = 250;

interface Stored {
  chatId: string;
  threadId?: string;
  messages: { id: string; role: string; text: string; status: string }[];
}

async function storedChat(page: Page, domain: string): Promise<Stored | null> {
  // Strings, not functions: the tests are type-checked for Node, without the DOM's types.
  const raw = (await page.evaluate(`sessionStorage.getItem(${JSON.stringify(`docent:${domain}`)})`)) as
    | string
    | null;
  return raw ? (JSON.parse(raw) as Stored) : null;
}

/** What the tests read of an admin transcript (`GET /v1/admin/threads/{id}`). */
interface Transcript {
  messages: {
    id: string;
    role: string;
    content: string;
    feedback?: { rating: string; comment: string | null }[];
  }[];
}

async function adminGet(server: TestServer, adminKey: string, url: string): Promise<Transcript> {
  const response = await fetch(`${server.baseUrl}${url}`, {
    headers: { Authorization: `Bearer ${adminKey}` },
  });
  expect(response.status, url).toBe(200);
  return (await response.json()) as Transcript;
}

async function adminKeyFor(server: TestServer, domain: string): Promise<string> {
  const site = await getSiteByDomain(server.storage, domain);
  if (!site) throw new Error(`no site ${domain}`);
  const created = await createApiKey(server.storage, {
    organizationId: site.organization_id,
    siteId: null,
    kind: 'admin',
  });
  return created.key;
}

/** Asks through the panel (opened with the shortcut) and waits for the answer to finish. */
async function askInPanel(page: Page, question: string): Promise<void> {
  const input = page.getByRole('textbox', { name: 'Your question' });
  if (!(await input.isVisible())) await page.keyboard.press('Control+i');
  await input.fill(question);
  await input.press('Enter');
  await waitForAnswer(page);
}

async function waitForAnswer(page: Page): Promise<void> {
  await expect
    .poll(() => page.locator('docent-assistant .log').getAttribute('aria-busy'), { timeout: 30_000 })
    .toBe('false');
}

function lastAnswer(page: Page) {
  return page.locator('docent-assistant .answer').last();
}

/** The id of the element focused inside the widget's shadow root, or what the page has focused instead. */
function focusedInWidget(page: Page): Promise<string> {
  return page.evaluate(
    `(() => { const inside = document.querySelector('docent-assistant')?.shadowRoot?.activeElement; return inside ? inside.id || inside.tagName : 'page:' + document.activeElement?.tagName; })()`,
  ) as Promise<string>;
}

describe.skipIf(chromiumPath === null)('the widget in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium(chromiumPath ?? '');
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe.each(dialects)('a reader on the demo page, on %s', (dialect) => {
    let server: TestServer;
    let context: BrowserContext;
    let adminKey = '';

    beforeAll(async () => {
      // The demo seeded as a first `npm start` seeds it; the `slow` site streams a delta every 250 ms.
      server = await startTestServer(dialect, {
        seedDemo: true,
        modelProvider: ({ site, sources, context: items }) =>
          new BuiltinAnswerer({
            sources,
            context: items,
            deltaDelayMs: site.domain === 'slow' ? SLOW_DELTA_MS : 0,
          }),
      });
      adminKey = await adminKeyFor(server, 'demo');
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('opens with Ctrl+I, streams a cited answer, and a citation opens the cited section', async () => {
      context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const response = await page.goto(`${server.baseUrl}/`);
      expect(response?.status()).toBe(200);
      expect(page.url()).toMatch(/\/sites\/demo\/pages\/index$/);
      await expect.poll(() => page.locator('docent-assistant .launcher').isVisible()).toBe(true);

      await page.keyboard.press('Control+i');
      const dialog = page.getByRole('dialog', { name: 'Ask Docent' });
      await expect.poll(() => dialog.isVisible()).toBe(true);
      // Focus moves into the panel, on the question box.
      expect(
        await page.evaluate(`document.querySelector('docent-assistant').shadowRoot.activeElement?.id`),
      ).toBe('docent-question');
      await askInPanel(page, 'How do I ingest my docs?');
      const answer = lastAnswer(page);
      expect((await answer.locator('.body').innerText()).length).toBeGreaterThan(20);
      const cite = answer.locator('a.cite').first();
      expect(await cite.count()).toBe(1);
      expect(await answer.locator('.sources li').count()).toBeGreaterThan(0);
      // The Sources list is numbered as the text cites ("[2]" is item 2), whatever the first cited number.
      const cited = [...new Set(await answer.locator('a.cite').allInnerTexts())].map(Number).sort();
      const listed = await page.evaluate(
        `[...[...document.querySelector('docent-assistant').shadowRoot.querySelectorAll('.answer')].at(-1).querySelectorAll('.sources li')].map((li) => li.value)`,
      );
      expect(listed).toEqual(cited);

      const href = (await cite.getAttribute('href')) ?? '';
      expect(href).toMatch(/\/sites\/demo\/pages\/.+#.+/);
      await cite.click();
      await page.waitForURL(href);
      const anchor = decodeURIComponent(new URL(href).hash.slice(1));
      expect(await page.evaluate(`document.getElementById(${JSON.stringify(anchor)}) !== null`)).toBe(true);
      // The conversation came along to the cited page.
      await page.keyboard.press('Control+i');
      await expect.poll(() => page.locator('docent-assistant .answer').count()).toBe(1);
      expect(await page.locator('docent-assistant .user').innerText()).toBe('How do I ingest my docs?');
      await context.close();
    });

    it('keeps a follow-up in the thread and stores the reader’s feedback, changeable', async () => {
      context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${server.baseUrl}/`);
      await askInPanel(page, 'How do I ingest my docs?');
      await askInPanel(page, 'And how do I check an ingestion job?');
      const stored = await storedChat(page, 'demo');
      expect(stored?.threadId).toMatch(/^thr_/);
      const thread = await adminGet(server, adminKey, `/v1/admin/threads/${stored?.threadId}`);
      expect(thread.messages.map((m: { role: string }) => m.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
      ]);
      const answerId = thread.messages[3]?.id;
      expect(stored?.messages.at(-1)?.id).toBe(answerId);

      const answer = lastAnswer(page);
      await answer.getByRole('button', { name: 'Not helpful' }).click();
      await answer
        .getByRole('textbox', { name: 'Tell us more (optional)' })
        .fill('It did not name the command.');
      await answer.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => answer.getByText('Thanks for the feedback.').isVisible()).toBe(true);
      // The comment's form is gone; focus stays in the dialog, on the question box, not on the page.
      expect(await focusedInWidget(page)).toBe('docent-question');
      // The panel thanks the reader at once; the vote and its comment are stored as their requests end.
      const feedbackOf = async (index: number) =>
        (await adminGet(server, adminKey, `/v1/admin/threads/${stored?.threadId}`)).messages[index]?.feedback;
      await expect
        .poll(() => feedbackOf(3))
        .toEqual([expect.objectContaining({ rating: 'down', comment: 'It did not name the command.' })]);
      expect(await feedbackOf(1)).toEqual([]);

      await answer.getByRole('button', { name: 'Helpful', exact: true }).click();
      await expect.poll(() => feedbackOf(3)).toEqual([expect.objectContaining({ rating: 'up' })]);
      await context.close();
    });

    it('has no serious accessibility violation (axe-core), fits a phone, follows dark mode', async () => {
      const shots: [string, Parameters<Browser['newContext']>[0]][] = [
        ['widget-light.png', { viewport: { width: 1280, height: 800 }, colorScheme: 'light' }],
        ['widget-dark.png', { viewport: { width: 1280, height: 800 }, colorScheme: 'dark' }],
        [
          'widget-mobile.png',
          { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, colorScheme: 'light' },
        ],
      ];
      for (const [file, options] of shots) {
        context = await browser.newContext(options);
        const page = await context.newPage();
        await page.goto(`${server.baseUrl}/`);
        if (options?.isMobile) {
          // A phone shows the page first (the navigation after it, behind "Menu"), as wide as the screen,
          // and no keyboard shortcut on the launcher.
          for (const docsPage of [
            '/',
            '/sites/demo/pages/guides/configuration',
            '/sites/demo/pages/quickstart',
          ]) {
            await page.goto(`${server.baseUrl}${docsPage}`);
            expect(
              await page.evaluate(
                `(() => ({ mainFirst: document.querySelector('main').getBoundingClientRect().top < document.querySelector('nav').getBoundingClientRect().top, width: document.documentElement.scrollWidth, kbd: getComputedStyle(document.querySelector('docent-assistant').shadowRoot.querySelector('.launcher kbd')).display }))()`,
              ),
              docsPage,
            ).toEqual({ mainFirst: true, width: 390, kbd: 'none' });
          }
          expect(await page.getByRole('link', { name: 'Menu' }).isVisible()).toBe(true);
        }
        await page.locator('docent-assistant .launcher').click();
        await askInPanel(page, 'How do I ingest my docs?');
        const panel = await page.locator('docent-assistant .panel').boundingBox();
        if (options?.isMobile) expect(panel).toEqual({ x: 0, y: 0, width: 390, height: 844 });
        else expect(panel?.width).toBeLessThanOrEqual(440);
        const background = await page.evaluate(
          `getComputedStyle(document.querySelector('docent-assistant').shadowRoot.querySelector('.panel')).backgroundColor`,
        );
        expect(background).toBe(options?.colorScheme === 'dark' ? 'rgb(21, 26, 35)' : 'rgb(255, 255, 255)');
        // Evaluated, not added as a script tag: the demo page's CSP refuses inline scripts, rightly.
        await page.evaluate(axeSource);
        const violations = (await page.evaluate(
          `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) })))`,
        )) as { id: string; impact: string; nodes: string[] }[];
        expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
        // Written for the README: what a reader sees.
        fs.mkdirSync(screenshots, { recursive: true });
        await page.screenshot({ path: path.join(screenshots, file) });
        // Escape closes the panel and gives focus back to the launcher that opened it.
        await page.keyboard.press('Escape');
        expect(await page.locator('docent-assistant .panel').isVisible()).toBe(false);
        expect(
          await page.evaluate(
            `document.querySelector('docent-assistant').shadowRoot.activeElement?.className`,
          ),
        ).toBe('launcher');
        await context.close();
      }
    });

    it('resumes an answer still streaming after a reload, and stops one on request', async () => {
      const slowKey = (await bootstrapSite(server.storage, { domain: `slow`, docsDir: bundledDocs }))
        .assistantKey;
      const host = await startHostPages();
      try {
        host.set('/guide', hostPage({ docentUrl: server.baseUrl, domain: 'slow', key: slowKey }));
        context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(`${host.origin}/guide`);
        await page.keyboard.press('Control+i');
        const input = page.getByRole('textbox', { name: 'Your question' });
        await input.fill('How do I check that the database is reachable?');
        await input.press('Enter');
        const body = lastAnswer(page).locator('.body');
        // Streamed: the text grows while the answer is still being written.
        await expect
          .poll(async () => (await body.innerText()).length, { timeout: 20_000 })
          .toBeGreaterThan(5);
        const early = (await body.innerText()).length;
        await expect
          .poll(async () => (await body.innerText()).length, { timeout: 20_000 })
          .toBeGreaterThan(early);
        expect(await page.locator('docent-assistant .log').getAttribute('aria-busy')).toBe('true');

        await page.reload();
        // The panel opens by itself on the answer still streaming, which goes on where it was.
        await expect
          .poll(() => page.locator('docent-assistant .panel').isVisible(), { timeout: 10_000 })
          .toBe(true);
        await waitForAnswer(page);
        const stored = await storedChat(page, 'slow');
        const last = stored?.messages.at(-1);
        expect(last?.status).toBe('done');
        const adminKeySlow = await adminKeyFor(server, 'slow');
        const thread = await adminGet(server, adminKeySlow, `/v1/admin/threads/${stored?.threadId}`);
        // The reload resumed the one answer: not asked again, and the whole text arrived.
        expect(thread.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
        expect(last?.text).toBe(thread.messages[1]?.content);

        const kept = (await storedChat(page, 'slow'))?.messages.length ?? 0;
        await input.fill('And how do I stop the server?');
        await input.press('Enter');
        // Past its first citation (the text the widget keeps has the marker; the page shows none yet).
        const newAnswer = async () => {
          const messages = (await storedChat(page, 'slow'))?.messages ?? [];
          return messages.length >= kept + 2 ? (messages.at(-1)?.text ?? '') : '';
        };
        await expect.poll(newAnswer, { timeout: 30_000 }).toMatch(/\[\d+\]/);
        // A reader reading an earlier answer keeps the link they focused while this one streams on.
        await page.locator('docent-assistant .answer').first().locator('.sources a').first().focus();
        await new Promise((resolve) => setTimeout(resolve, 600));
        expect(await focusedInWidget(page)).toBe('A');
        await page.getByRole('button', { name: 'Stop the answer' }).click();
        await expect.poll(() => lastAnswer(page).getByText('Stopped.').isVisible()).toBe(true);
        expect(await page.getByRole('button', { name: 'Send the question' }).isVisible()).toBe(true);
        // Stopped before its sources came (they end the stream): its citation markers are not left as text.
        expect((await storedChat(page, 'slow'))?.messages.at(-1)?.text).toMatch(/\[\d+\]/);
        expect(await lastAnswer(page).locator('.body').innerText()).not.toMatch(/\[\d+\]/);
        // Try again: the question is answered anew, shown once, and the server keeps the new answer only.
        await lastAnswer(page).getByRole('button', { name: 'Try again' }).click();
        await waitForAnswer(page);
        const retried = await storedChat(page, 'slow');
        expect(retried?.messages.map((m) => `${m.role}:${m.status}`)).toEqual([
          'user:done',
          'assistant:done',
          'user:done',
          'assistant:done',
        ]);
        await expect
          .poll(
            async () => {
              const messages = (await adminGet(server, adminKeySlow, `/v1/admin/threads/${stored?.threadId}`))
                .messages;
              return (
                messages.map((m) => m.role).join(',') +
                (messages.at(-1)?.id === retried?.messages.at(-1)?.id ? ':same' : '')
              );
            },
            { timeout: 20_000 },
          )
          .toBe('user,assistant,user,assistant:same');
        await context.close();
      } finally {
        await host.close();
      }
    });
  });

  describe('on a docs site of another origin (SQLite)', () => {
    let server: TestServer;
    let host: HostPages;
    let docsKey = '';
    let hostileKey = '';
    let rawHtmlKey = '';
    let adminKey = '';
    /** Answers of the `flaky` site that fail before any text (the model is down), then it recovers. */
    let flakyFailures = 0;

    beforeAll(async () => {
      // `hostile`: a model that writes every trick in the book; `rawhtml`: docs with raw HTML in them.
      server = await startTestServer('sqlite', {
        modelProvider: ({ site, sources, context: items }) =>
          site.domain === 'flaky' && flakyFailures-- > 0
            ? new MockLanguageModelV3({
                doStream: async () => {
                  throw new Error('model is down');
                },
              })
            : site.domain === 'rtl' || site.domain === 'cut' || site.domain === 'cited'
              ? new MockLanguageModelV3({
                  doStream: async () => ({
                    stream: simulateReadableStream({
                      chunks: scriptedModelStream(RTL_CODE_MARKDOWN.match(/[\s\S]{1,8}/g) ?? []),
                      // `cut` is slow enough to be cut off halfway.
                      chunkDelayInMs: site.domain === 'cut' ? 400 : 100,
                    }),
                  }),
                })
              : site.domain === 'hostile'
                ? new MockLanguageModelV3({
                    doStream: async () => ({
                      stream: simulateReadableStream({
                        chunks: scriptedModelStream(HOSTILE_MARKDOWN.match(/[\s\S]{1,40}/g) ?? []),
                      }),
                    }),
                  })
                : new BuiltinAnswerer({ sources, context: items }),
      });
      const docs = await bootstrapSite(server.storage, {
        domain: 'docs',
        docsDir: bundledDocs,
        siteName: 'Acme Docs',
      });
      docsKey = docs.assistantKey;
      hostileKey = (await bootstrapSite(server.storage, { domain: 'hostile', docsDir: bundledDocs }))
        .assistantKey;
      rawHtmlKey = (await bootstrapSite(server.storage, { domain: 'rawhtml', docsDir: rawHtmlDocs() }))
        .assistantKey;
      adminKey = await adminKeyFor(server, 'docs');
      host = await startHostPages();
    });
    afterAll(async () => {
      await host?.close();
      await server?.stop();
    });

    async function open(pagePath: string, html: string, options: Parameters<Browser['newContext']>[0] = {}) {
      host.set(pagePath, html);
      const context = await browser.newContext(options);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const foreign: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.hostname !== '127.0.0.1') foreign.push(request.url());
      });
      await page.goto(`${host.origin}${pagePath}`);
      await expect.poll(() => page.locator('docent-assistant .launcher').isVisible()).toBe(true);
      return { context, page, errors, foreign };
    }

    it('never runs or loads what a model or the docs write', async () => {
      const { context, page, errors, foreign } = await open(
        '/hostile',
        hostPage({ docentUrl: server.baseUrl, domain: 'hostile', key: hostileKey }),
        { permissions: ['clipboard-read', 'clipboard-write'] },
      );
      await askInPanel(page, 'How do I ingest my docs?');
      const body = lastAnswer(page).locator('.body');
      const text = await body.innerText();
      // Raw HTML is shown as the text it is.
      expect(text).toContain('<script>window.__pwned');
      expect(text).toContain('<b>inline code</b>');
      const found = await page.evaluate(`(() => {
        const root = document.querySelector('docent-assistant').shadowRoot.querySelector('.answer .body');
        const all = [...root.querySelectorAll('*')];
        return {
          pwned: window.__pwned ?? null,
          tags: [...new Set(all.map((e) => e.tagName.toLowerCase()))].sort(),
          handlers: all.flatMap((e) => [...e.attributes].filter((a) => a.name.startsWith('on')).map((a) => a.name)),
          styles: all.filter((e) => e.hasAttribute('style')).length,
          hrefs: [...root.querySelectorAll('a')].map((a) => a.getAttribute('href')),
        };
      })()`);
      expect(found).toMatchObject({ pwned: null, handlers: [], styles: 0 });
      // The code block's Copy button puts its text on the clipboard, as text.
      await lastAnswer(page).getByRole('button', { name: 'Copy code' }).click();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(
        "<script>window.__pwned = 'code'</script>\n",
      );
      expect(await page.evaluate('window.__pwned ?? null')).toBeNull();
      const { tags, hrefs } = found as { tags: string[]; hrefs: (string | null)[] };
      for (const tag of [
        'script',
        'img',
        'iframe',
        'style',
        'svg',
        'object',
        'embed',
        'form',
        'link',
        'meta',
      ])
        expect(tags).not.toContain(tag);
      for (const href of hrefs)
        expect(href === null || /^(https?:|\/[^/]|#)/.test(href), String(href)).toBe(true);
      // The answer on the docs page and the raw-HTML docs, asked through the built-in answerer, too.
      host.set('/raw', hostPage({ docentUrl: server.baseUrl, domain: 'rawhtml', key: rawHtmlKey }));
      await page.goto(`${host.origin}/raw`);
      await askInPanel(page, 'How do I set up the frobnicator?');
      expect(await lastAnswer(page).locator('.body').innerText()).toContain('frob key');
      const cite = await lastAnswer(page).locator('a.cite').first().getAttribute('href');
      await page.goto(cite ?? '');
      expect(await page.evaluate('window.__pwned ?? null')).toBeNull();
      await page.waitForTimeout(200);
      expect(foreign).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });

    it('keeps the host page’s CSS out, and its own CSS in', async () => {
      const head = `<style>
        * { font-family: "Comic Sans MS", cursive !important; color: rgb(255, 0, 0) !important; line-height: 5 !important; letter-spacing: 3px !important; }
        button { padding: 40px !important; background: rgb(255, 255, 0) !important; text-transform: uppercase !important; }
        div, p, h2, form { margin: 50px !important; display: inline !important; }
      </style>`;
      const body = '<p>Docs text.</p><button class="host-button">Host button</button>';
      const buttonStyle = `JSON.stringify([...getComputedStyle(document.querySelector('.host-button'))].map((p) => p + ':' + getComputedStyle(document.querySelector('.host-button')).getPropertyValue(p)))`;
      // The same page without the widget, for comparison.
      host.set(
        '/plain',
        hostPage({ docentUrl: server.baseUrl, domain: 'docs', key: docsKey, head, body }).replace(
          /<script[\s\S]*<\/script>/,
          '',
        ),
      );
      const plain = await browser.newPage();
      await plain.goto(`${host.origin}/plain`);
      const hostButtonBefore = await plain.evaluate(buttonStyle);
      await plain.close();

      const { context, page } = await open(
        '/css',
        hostPage({ docentUrl: server.baseUrl, domain: 'docs', key: docsKey, head, body }),
      );
      await askInPanel(page, 'How do I ingest my docs?');
      const styles = (await page.evaluate(`(() => {
        const root = document.querySelector('docent-assistant').shadowRoot;
        const pick = (selector) => {
          const s = getComputedStyle(root.querySelector(selector));
          return { font: s.fontFamily, color: s.color, lineHeight: s.lineHeight, spacing: s.letterSpacing, padding: s.paddingTop, display: s.display, margin: s.marginTop, transform: s.textTransform };
        };
        return { panel: pick('.panel'), send: pick('.send'), answer: pick('.answer .body p'), header: pick('header') };
      })()`)) as Record<string, Record<string, string>>;
      for (const [part, style] of Object.entries(styles)) {
        expect(style.font, part).not.toMatch(/Comic/);
        expect(style.color, part).not.toBe('rgb(255, 0, 0)');
        expect(style.spacing, part).toBe('normal');
        expect(style.margin === '50px', part).toBe(false);
      }
      expect(styles.panel?.display).toBe('flex');
      // 8 px and a 1 px transparent border, which forced colours draw (styles.ts).
      expect(styles.send?.padding).toBe('8px');
      expect(styles.send?.transform).toBe('none');
      // …and the widget's CSS changed nothing of the host's.
      const hostButtonAfter = await page.evaluate(buttonStyle);
      expect(hostButtonAfter).toBe(hostButtonBefore);
      await context.close();
    });

    it('works under a strict CSP and a universal reset, once for two tags, without randomUUID; Esc and Tab stay', async () => {
      // The guide's policy with `default-src 'self'`: no inline <style> is allowed, the widget's included.
      const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' ${server.baseUrl}; connect-src 'self' ${server.baseUrl}">`;
      const tag = `<script src="${server.baseUrl}/widget.js" data-domain="docs" data-key="${docsKey}" defer></script>`;
      const launcherOf = async (page: Page) =>
        (await page.evaluate(`(() => {
          const hosts = document.querySelectorAll('docent-assistant');
          const s = getComputedStyle(hosts[0].shadowRoot.querySelector('.launcher'));
          return { widgets: hosts.length, position: s.position, background: s.backgroundColor };
        })()`)) as { widgets: number; position: string; background: string };
      const strict = await open(
        '/strict',
        hostPage({ docentUrl: server.baseUrl, domain: 'docs', key: docsKey, head: csp, body: tag }),
      );
      // randomUUID exists only in secure contexts: an intranet page over plain HTTP has none.
      await strict.page.evaluate('delete Crypto.prototype.randomUUID');
      // Before: two widgets, and an unstyled launcher (the page's CSP refused the inline <style>).
      expect(await launcherOf(strict.page)).toEqual({
        widgets: 1,
        position: 'fixed',
        background: 'rgb(37, 87, 214)',
      });
      await askInPanel(strict.page, 'How do I ingest my docs?');
      await expect.poll(() => strict.page.locator('docent-assistant .answer').count()).toBe(1);
      expect(strict.errors).toEqual([]);
      await strict.context.close();

      // A reset that reaches every element, the widget's own, and a main column stacked above the rest.
      const reset =
        '<style>* { all: unset } main { position: relative; z-index: 1; display: block; height: 100vh }</style>';
      const { context, page, errors } = await open(
        '/reset',
        hostPage({ docentUrl: server.baseUrl, domain: 'docs', key: docsKey, head: reset }),
      );
      expect((await launcherOf(page)).position).toBe('fixed');
      // Before: the launcher was under <main>, and a click on it timed out.
      await page.locator('docent-assistant .launcher').click({ timeout: 5_000 });
      await expect.poll(() => page.getByRole('dialog').isVisible()).toBe(true);
      const onTop = await page.evaluate(`(() => {
        const panel = document.querySelector('docent-assistant').shadowRoot.querySelector('.panel');
        const box = panel.getBoundingClientRect();
        return document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2)?.tagName;
      })()`);
      expect(onTop).toBe('DOCENT-ASSISTANT');
      // A click on the page moves focus out of the dialog; Tab brings it back, Escape closes it.
      await page.mouse.click(5, 5);
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement?.tagName')).toBe('DOCENT-ASSISTANT');
      await page.mouse.click(5, 5);
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByRole('dialog').isVisible()).toBe(false);
      // Ctrl + the key where QWERTY has I: on Dvorak it types C (copy, the reader's own), on a Russian
      // layout Ш (the shortcut, as the letter I is not there).
      const press = (key: string) =>
        page.evaluate(
          `document.dispatchEvent(new KeyboardEvent('keydown', { key: ${JSON.stringify(key)}, code: 'KeyI', ctrlKey: true, bubbles: true }))`,
        );
      await press('c');
      expect(await page.getByRole('dialog').isVisible()).toBe(false);
      await press('ш');
      await expect.poll(() => page.getByRole('dialog').isVisible()).toBe(true);
      expect(errors).toEqual([]);
      await context.close();
    });

    it("opens for a page still running another build's launcher (a cached or pinned widget.js)", async () => {
      // What a browser that cached widget.js before an upgrade runs: a launcher naming a panel this
      // server no longer has. Before: the panel's 404 left the widget unable to open.
      const current = await (await fetch(`${server.baseUrl}/widget.js`)).text();
      const stale = current.replace(/panel-[0-9a-f]{16}\.js/, 'panel-0123456789abcdef.js');
      expect(stale).not.toBe(current);
      host.set('/stale-launcher', hostPage({ docentUrl: server.baseUrl, domain: 'docs', key: docsKey }));
      const context = await browser.newContext();
      await context.route(`${server.baseUrl}/widget.js`, (route) =>
        route.fulfill({ status: 200, contentType: 'text/javascript', body: stale }),
      );
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${host.origin}/stale-launcher`);
      await askInPanel(page, 'How do I ingest my docs?');
      await expect.poll(() => page.locator('docent-assistant .answer').count()).toBe(1);
      expect(errors).toEqual([]);
      await context.close();
    });

    it("reads the site's name again when the first read failed", async () => {
      host.set('/config-retry', hostPage({ docentUrl: server.baseUrl, domain: 'docs', key: docsKey }));
      const context = await browser.newContext();
      let refused = 0;
      // Before the page loads: the panel reads the site's config as soon as it is mounted.
      // The refusal comes late, so the panel is opened while that first read is still on its way.
      await context.route(/\/assistant\/docs\/config/, async (route) => {
        if (refused++ > 0) return route.continue();
        await new Promise((resolve) => setTimeout(resolve, 500));
        return route.fulfill({
          status: 429,
          contentType: 'application/json',
          body: '{"error":{"code":"rate_limited"}}',
        });
      });
      const page = await context.newPage();
      await page.goto(`${host.origin}/config-retry`);
      await expect.poll(() => page.locator('docent-assistant .launcher').isVisible()).toBe(true);
      // The read when the panel was mounted is refused once the panel is open, and is read again then.
      // Before: the failed read was kept for the session (later: until the next open), and the panel
      // said "Ask the docs".
      await expect.poll(() => refused).toBe(1);
      await page.keyboard.press('Control+i');
      await expect
        .poll(() => page.getByRole('dialog').getByRole('heading').textContent())
        .toBe('Ask Acme Docs');
      expect(refused).toBe(2);
      await context.close();
    });

    it('says every failure in words: rate limit, credits, server down', async () => {
      const limited = await createTenant(server.storage, {
        domain: 'limited',
        plan: { orgRequestsPerHour: 1 },
      });
      const broke = await createTenant(server.storage, {
        domain: 'broke',
        plan: { monthlyCredits: 0, overageEnabled: false },
      });
      const { context, page } = await open(
        '/limited',
        hostPage({ docentUrl: server.baseUrl, domain: 'limited', key: limited.assistantKey }),
      );
      await askInPanel(page, 'First question?');
      await askInPanel(page, 'Second question?');
      const rateLimited = await lastAnswer(page).locator('.failure').innerText();
      expect(rateLimited).toMatch(
        /Too many questions right now\. Please try again in (\d+ minutes|an hour)\./,
      );
      expect(rateLimited).not.toContain('{');
      // A 429 from something in front of Docent, with neither RateLimit-Reset nor Retry-After: no known
      // wait (it read as a wait of 0: "try again in 1 seconds").
      const bareLimit = /\/assistant\/limited\/message$/;
      await page.route(bareLimit, (route) =>
        route.request().method() === 'POST'
          ? route.fulfill({ status: 429, contentType: 'application/json', body: '{"error":{}}' })
          : route.continue(),
      );
      await askInPanel(page, 'Third question?');
      expect(await lastAnswer(page).locator('.failure').innerText()).toContain(
        'Please try again in a little while.',
      );
      await page.unroute(bareLimit);

      host.set('/broke', hostPage({ docentUrl: server.baseUrl, domain: 'broke', key: broke.assistantKey }));
      await page.goto(`${host.origin}/broke`);
      await askInPanel(page, 'Any question?');
      expect(await lastAnswer(page).locator('.failure').innerText()).toContain('used all of its answers');
      expect(await lastAnswer(page).getByRole('button', { name: 'Try again' }).count()).toBe(0);

      // A page whose origin the site does not allow: the refusal names who can fix it, not a network error.
      const fenced = await createTenant(server.storage, {
        domain: 'fenced',
        allowedOrigins: ['https://docs.example.com'],
      });
      host.set(
        '/fenced',
        hostPage({ docentUrl: server.baseUrl, domain: 'fenced', key: fenced.assistantKey }),
      );
      await page.goto(`${host.origin}/fenced`);
      await askInPanel(page, 'Any question?');
      const fencedOut = await lastAnswer(page).locator('.failure').innerText();
      expect(fencedOut).toContain('The assistant is not set up for this page.');
      expect(fencedOut).toContain('allowed sites need attention from the site owner');

      // A server that goes away after the page loaded.
      const gone = await startTestServer('sqlite');
      const goneKey = (await bootstrapSite(gone.storage, { domain: 'gone', docsDir: smallDocs() }))
        .assistantKey;
      host.set('/gone', hostPage({ docentUrl: gone.baseUrl, domain: 'gone', key: goneKey }));
      await page.goto(`${host.origin}/gone`);
      // The panel loads while the page is idle; then the server goes.
      await page.waitForFunction(`Boolean(globalThis[Symbol.for('docent.widget.panel')])`);
      await gone.stop();
      await askInPanel(page, 'Is anyone there?');
      const down = await lastAnswer(page).locator('.failure').innerText();
      expect(down).toContain('The assistant cannot be reached.');
      expect(await lastAnswer(page).getByRole('button', { name: 'Try again' }).count()).toBe(1);
      await context.close();
    });

    it('says a failure once, in the status region, and not again when the next question is asked', async () => {
      const { context, page } = await open(
        '/said-once',
        hostPage({ docentUrl: server.baseUrl, domain: 'docs', key: docsKey }),
      );
      const message = /\/assistant\/docs\/message$/;
      await page.route(message, (route) =>
        route.request().method() === 'POST'
          ? route.fulfill({ status: 429, contentType: 'application/json', body: '{"error":{}}' })
          : route.continue(),
      );
      await askInPanel(page, 'First question?');
      const status = page.locator('docent-assistant [role=status]');
      expect(await status.innerText()).toContain('Too many questions right now.');
      await page.unroute(message);
      // Everything put in the page from here on that a screen reader reads out as it appears.
      await page.evaluate(`(() => {
        window.spoken = [];
        new MutationObserver((changes) => { for (const change of changes) for (const node of change.addedNodes)
          if (node instanceof Element) for (const alert of [node, ...node.querySelectorAll('*')])
            if (['alert', 'alertdialog'].includes(alert.getAttribute('role')) || alert.getAttribute('aria-live') === 'assertive') window.spoken.push(alert.textContent);
        }).observe(document.querySelector('docent-assistant').shadowRoot, { childList: true, subtree: true });
      })()`);
      await askInPanel(page, 'Second question?');
      expect(await status.innerText()).toBe('Answer ready.');
      // The first failure is still shown, and was not read out again over the second answer.
      expect(await page.locator('docent-assistant .failure').count()).toBe(1);
      expect(await page.evaluate('window.spoken')).toEqual([]);
      await context.close();
    });

    it('keeps the edges of its buttons and a pressed vote in forced colours (Windows high contrast)', async () => {
      const { context, page } = await open(
        '/forced-colors',
        hostPage({ docentUrl: server.baseUrl, domain: 'docs', key: docsKey }),
        { viewport: { width: 1280, height: 800 } },
      );
      await page.emulateMedia({ forcedColors: 'active' });
      const edge = (selector: string) =>
        page.evaluate(
          `(() => { const s = getComputedStyle(document.querySelector('docent-assistant').shadowRoot.querySelector(${JSON.stringify(selector)})); return s.borderTopStyle + ' ' + s.borderTopWidth; })()`,
        );
      // Filled buttons lose their fill: without a border nothing shows where they are.
      expect(await edge('.launcher')).toBe('solid 1px');
      await askInPanel(page, 'How do I ingest my docs?');
      expect(await edge('.send')).toBe('solid 1px');
      await lastAnswer(page).getByRole('button', { name: 'Helpful', exact: true }).click();
      const fills = (await page.evaluate(
        `[...document.querySelector('docent-assistant').shadowRoot.querySelectorAll('.actions button')].map((b) => b.getAttribute('aria-pressed') + ' ' + getComputedStyle(b).backgroundColor)`,
      )) as string[];
      expect(fills).toHaveLength(2);
      const [pressed, unpressed] = [
        fills.find((f) => f.startsWith('true')),
        fills.find((f) => f.startsWith('false')),
      ];
      expect(pressed?.split(' ').slice(1).join(' ')).not.toBe(unpressed?.split(' ').slice(1).join(' '));
      await context.close();
    });

    it('shows its question and comment boxes and their edges at readable contrast, light and dark', async () => {
      // WCAG's contrast ratio of two colours, each as the browser computes it (`rgb(…)`, or `color(srgb …)`).
      const contrast = `((a, b) => {
        const lum = (c) => { const v = c.match(/[\\d.]+/g).map(Number); const [r, g, b] = (c.startsWith('color(') ? v : v.map((x) => x / 255)).slice(0, 3).map((x) => x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
        const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
        return (x + 0.05) / (y + 0.05);
      })`;
      for (const theme of ['light', 'dark']) {
        const { context, page } = await open(
          `/fields-${theme}`,
          hostPage({
            docentUrl: server.baseUrl,
            domain: 'docs',
            key: docsKey,
            attributes: { 'data-theme': theme },
          }),
        );
        await askInPanel(page, 'How do I ingest my docs?');
        await lastAnswer(page).getByRole('button', { name: 'Helpful', exact: true }).click();
        await expect.poll(() => lastAnswer(page).locator('.comment input').count()).toBe(1);
        const ratios = (await page.evaluate(`(() => {
          const ratio = ${contrast};
          const root = document.querySelector('docent-assistant').shadowRoot;
          const out = {};
          for (const [name, field] of [['question', root.querySelector('textarea')], ['comment', root.querySelector('.comment input')]]) {
            const s = getComputedStyle(field);
            out[name + ' placeholder'] = ratio(getComputedStyle(field, '::placeholder').color, s.backgroundColor);
            // What shows where the box is (WCAG's non-text contrast): its edge against the panel.
            out[name + ' edge'] = ratio(s.borderTopColor, getComputedStyle(root.querySelector('.panel')).backgroundColor);
          }
          return out;
        })()`)) as Record<string, number>;
        // Text 4.5:1; an edge, what shows where a control is, 3:1.
        for (const [name, value] of Object.entries(ratios))
          expect(value, `${theme}: ${name}`).toBeGreaterThanOrEqual(name.endsWith('edge') ? 3 : 4.5);
        await context.close();
      }
    });

    it('spaces the links of its Sources list for a finger (24 px apart)', async () => {
      // `cited` answers as `rtl` does, citing two sources ([1, 2]).
      const cited = await bootstrapSite(server.storage, { domain: 'cited', docsDir: bundledDocs });
      const { context, page } = await open(
        '/sources-spacing',
        hostPage({ docentUrl: server.baseUrl, domain: 'cited', key: cited.assistantKey }),
        { viewport: { width: 1280, height: 800 } },
      );
      await askInPanel(page, 'How do I start it?');
      const links = lastAnswer(page).locator('.sources a');
      expect(await links.count()).toBeGreaterThan(1);
      const boxes = await links.evaluateAll((all) => all.map((a) => a.getBoundingClientRect().toJSON()));
      // WCAG 2.5.8: a target under 24 px is fine when a 24 px circle on it meets no other target.
      for (let i = 1; i < boxes.length; i++) {
        const [above, below] = [boxes[i - 1], boxes[i]];
        const centres = below.top + below.height / 2 - (above.top + above.height / 2);
        expect(Math.max(below.height, centres)).toBeGreaterThanOrEqual(24);
      }
      await context.close();
    });

    it('explains a server error with its reference and offline in words, and Try again recovers', async () => {
      const flaky = await bootstrapSite(server.storage, { domain: 'flaky', docsDir: smallDocs() });
      const { context, page } = await open(
        '/flaky',
        hostPage({ docentUrl: server.baseUrl, domain: 'flaky', key: flaky.assistantKey }),
      );
      flakyFailures = 1;
      await askInPanel(page, 'How do I rotate an API key?');
      const failure = await lastAnswer(page).locator('.failure').innerText();
      expect(failure).toMatch(/Something went wrong on our side\. Please try again \(reference req_\w+\)\./);
      await lastAnswer(page).getByRole('button', { name: 'Try again' }).click();
      await waitForAnswer(page);
      expect(await lastAnswer(page).locator('.failure').count()).toBe(0);
      expect(await lastAnswer(page).locator('.body').innerText()).toContain('acme keys rotate');
      expect(await page.locator('docent-assistant .user').count()).toBe(1);

      // Tab stays in the open panel: from the last control it wraps to the first.
      const focusedClass = () =>
        page.evaluate(`document.querySelector('docent-assistant').shadowRoot.activeElement?.className ?? ''`);
      await page.getByRole('button', { name: 'Send the question' }).focus();
      await page.keyboard.press('Tab');
      expect(await focusedClass()).toBe('ghost');
      await page.keyboard.press('Shift+Tab');
      expect(await focusedClass()).toBe('send');

      await context.setOffline(true);
      await askInPanel(page, 'And when does the old key stop working?');
      expect(await lastAnswer(page).locator('.failure').innerText()).toContain('You are offline.');
      await context.setOffline(false);
      await lastAnswer(page).getByRole('button', { name: 'Try again' }).click();
      await waitForAnswer(page);
      expect(await lastAnswer(page).locator('.body').innerText()).toContain('one hour');
      await context.close();
    });

    it('shows code left to right in an Arabic answer, links each source of [1, 2], copies over plain HTTP; ask() waits, reset() then ask() asks', async () => {
      const rtl = await bootstrapSite(server.storage, { domain: 'rtl', docsDir: bundledDocs });
      const { context, page, errors } = await open(
        '/rtl',
        hostPage({ docentUrl: server.baseUrl, domain: 'rtl', key: rtl.assistantKey }),
        { permissions: ['clipboard-read', 'clipboard-write'] },
      );
      // A page over plain HTTP (an intranet host) has no navigator.clipboard: it is a secure contexts' API.
      await page.evaluate(`window.clip = navigator.clipboard; delete Navigator.prototype.clipboard`);
      await askInPanel(page, 'How do I start it?');
      const body = lastAnswer(page).locator('.body');
      expect(await body.getAttribute('dir')).toBe('auto');
      // Before: the code took the answer's direction, and "cd .." read ".. cd", "npm start;" read ";npm start".
      const directions = await page.evaluate(`(() => {
        const answer = [...document.querySelector('docent-assistant').shadowRoot.querySelectorAll('.answer')].at(-1);
        return [...answer.querySelectorAll('p, pre, code')].map((e) => e.tagName + ':' + getComputedStyle(e).direction);
      })()`);
      expect(directions).toEqual(['P:rtl', 'PRE:ltr', 'CODE:ltr', 'P:rtl', 'CODE:ltr']);
      // Before: "[1, 2]" stayed as text, though the server reads it as two citations and lists both.
      expect(await lastAnswer(page).locator('a.cite').allInnerTexts()).toEqual(['1', '2']);
      expect(await body.innerText()).not.toContain('[1, 2]');
      expect(await lastAnswer(page).locator('.sources li').count()).toBe(2);
      // The sources take their titles' direction, as the answer does (an Arabic site's run right to left,
      // their numbers on the right; before, always left to right), indented on their start side.
      const sources = lastAnswer(page).locator('.sources ol');
      expect(await sources.getAttribute('dir')).toBe('auto');
      expect(
        await sources.evaluate((ol) => ol.ownerDocument.defaultView?.getComputedStyle(ol).paddingInlineStart),
      ).toBe('20px');
      // Before: Copy did nothing at all without navigator.clipboard.
      await lastAnswer(page).getByRole('button', { name: 'Copy code' }).click();
      await expect.poll(() => lastAnswer(page).locator('.copy').innerText()).toBe('Copied');
      // Copied as the selection it makes (the code block's last line break is not part of it).
      expect(await page.evaluate('window.clip.readText()')).toBe('cd ..\nnpm start;');

      // A question asked by the page while an answer streams waits in the box instead of vanishing, and
      // one asked right after a reset is sent (before: both were dropped).
      const input = page.getByRole('textbox', { name: 'Your question' });
      await input.fill('How do I stop it?');
      await input.press('Enter');
      await expect.poll(() => page.locator('docent-assistant .log').getAttribute('aria-busy')).toBe('true');
      await page.evaluate(`Docent.ask('And how do I restart it?')`);
      expect(await input.inputValue()).toBe('And how do I restart it?');
      await page.evaluate(`Docent.reset(); Docent.ask('Where are the logs?')`);
      await waitForAnswer(page);
      expect(await page.locator('docent-assistant .user').allInnerTexts()).toEqual(['Where are the logs?']);
      expect(await lastAnswer(page).locator('.body').innerText()).toContain('npm start;');
      expect(await page.getByRole('status').innerText()).toBe('Answer ready.');
      expect(errors).toEqual([]);
      await context.close();
    });

    it('sits in the bottom left corner with data-position="bottom-left", and fills a phone either way', async () => {
      const html = hostPage({
        docentUrl: server.baseUrl,
        domain: 'docs',
        key: docsKey,
        attributes: { 'data-position': 'bottom-left' },
      });
      const { context, page } = await open('/left', html, { viewport: { width: 1280, height: 800 } });
      const launcher = page.locator('docent-assistant .launcher');
      await expect.poll(() => launcher.isVisible()).toBe(true);
      const button = await launcher.boundingBox();
      expect(button?.x).toBe(20);
      expect((button?.y ?? 0) + (button?.height ?? 0)).toBe(780);
      await launcher.click();
      const panel = page.locator('docent-assistant .panel');
      await expect.poll(() => panel.isVisible()).toBe(true);
      const box = await panel.boundingBox();
      expect({ x: box?.x, bottom: (box?.y ?? 0) + (box?.height ?? 0) }).toEqual({ x: 20, bottom: 780 });
      await context.close();
      // A phone-wide window (the host page has no viewport meta tag, so a phone would lay it out 980 wide).
      const phone = await open('/left', html, { viewport: { width: 390, height: 844 } });
      await phone.page.locator('docent-assistant .launcher').click();
      await expect.poll(() => phone.page.locator('docent-assistant .panel').isVisible()).toBe(true);
      expect(await phone.page.locator('docent-assistant .panel').boundingBox()).toEqual({
        x: 0,
        y: 0,
        width: 390,
        height: 844,
      });
      await phone.context.close();
    });

    it('says an answer cut off by the network mid-stream is the server unreachable, and Try again', async () => {
      const cut = await bootstrapSite(server.storage, { domain: 'cut', docsDir: bundledDocs });
      // Docent behind a TCP proxy whose connections the test cuts, as a server going down or a dropped
      // network does.
      const sockets = new Set<net.Socket>();
      const proxy = net.createServer((client) => {
        const upstream = net.connect(Number(new URL(server.baseUrl).port), '127.0.0.1');
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => {});
        }
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
      const { context, page } = await open(
        '/cut',
        hostPage({ docentUrl: proxyUrl, domain: 'cut', key: cut.assistantKey }),
      );
      await page.keyboard.press('Control+i');
      const input = page.getByRole('textbox', { name: 'Your question' });
      await input.fill('How do I start it?');
      await input.press('Enter');
      // The first words come after the search and the model's first 400 ms chunk; on a loaded CI machine
      // that took longer than the poll's default second.
      await expect
        .poll(() => lastAnswer(page).locator('.body p:not(.typing)').count(), { timeout: 15_000 })
        .toBeGreaterThan(0);
      for (const socket of sockets) socket.destroy();
      await waitForAnswer(page);
      // Before: "Something went wrong. The answer could not be shown.", as for a bug in the widget.
      const failure = await lastAnswer(page).locator('.failure').innerText();
      expect(failure).toContain('The assistant cannot be reached.');
      await lastAnswer(page).getByRole('button', { name: 'Try again' }).click();
      await waitForAnswer(page);
      expect(await lastAnswer(page).locator('.failure').count()).toBe(0);
      expect(await lastAnswer(page).locator('.body').innerText()).toContain('npm start;');
      await context.close();
      await new Promise((resolve) => proxy.close(resolve));
    });

    it('asks about selected code, asks from ?assistant=, and shows the site’s starter questions', async () => {
      const patched = await fetch(`${server.baseUrl}/v1/admin/sites/docs/settings`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          starterQuestions: ['How do I ingest my docs?', 'Which databases can I use?'],
        }),
      });
      expect(patched.status).toBe(200);
      const body =
        '<p>Run this:</p><pre><code id="snippet">npm run docent -- ingest --site acme</code></pre>';
      const { context, page } = await open(
        '/ask',
        hostPage({
          docentUrl: server.baseUrl,
          domain: 'docs',
          key: docsKey,
          body,
          attributes: { 'data-version': 'v2' },
        }),
      );
      await page.keyboard.press('Control+i');
      const starters = page.locator('docent-assistant .starters button');
      await expect
        .poll(() => starters.allInnerTexts())
        .toEqual(['How do I ingest my docs?', 'Which databases can I use?']);
      expect(await page.getByRole('heading', { name: 'Ask Acme Docs' }).isVisible()).toBe(true);
      await page.keyboard.press('Escape');

      const sent: unknown[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/v2/assistant/docs/message')) sent.push(request.postDataJSON());
      });
      await page.evaluate(`(() => {
        const range = document.createRange();
        range.selectNodeContents(document.getElementById('snippet'));
        const selection = document.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        document.dispatchEvent(new MouseEvent('mouseup', { bubbles: true }));
      })()`);
      await page.getByRole('button', { name: 'Ask about this' }).click();
      expect(await page.locator('docent-assistant .chip').innerText()).toContain('About this code');
      await askInPanel(page, 'What does this do?');
      expect(sent.at(-1)).toMatchObject({
        currentPath: 'ask',
        filter: { version: 'v2', language: 'en' },
        context: [{ type: 'code', value: 'npm run docent -- ingest --site acme', path: 'ask' }],
      });
      expect(await page.locator('docent-assistant .user').last().innerText()).toContain(
        'About: npm run docent',
      );

      await page.getByRole('button', { name: 'New chat' }).click();
      // A paste longer than a question may be is cut, and the panel says so.
      const box = page.getByRole('textbox', { name: 'Your question' });
      await box.fill('x'.repeat(4_100));
      expect((await box.inputValue()).length).toBe(4_000);
      expect(await page.locator('docent-assistant .limit').isVisible()).toBe(true);
      await box.fill('');
      expect(await page.locator('docent-assistant .limit').isVisible()).toBe(false);
      await starters.first().click();
      // Focus stays in the dialog when the starter list goes: the follow-up is typed straight away.
      expect(await focusedInWidget(page)).toBe('docent-question');
      await waitForAnswer(page);
      expect(sent.at(-1)).toMatchObject({ messages: [{ parts: [{ text: 'How do I ingest my docs?' }] }] });
      expect(sent.at(-1)).not.toHaveProperty('threadId');

      await page.goto(`${host.origin}/ask?assistant=${encodeURIComponent('Which databases can I use?')}`);
      await waitForAnswer(page);
      expect(await page.locator('docent-assistant .user').last().innerText()).toBe(
        'Which databases can I use?',
      );
      expect(new URL(page.url()).search).toBe('');
      await context.close();
    });

    it('gives pages a JavaScript API: init, ask, events, update, reset, destroy', async () => {
      const html = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>API</title></head><body><h1>Docs</h1>
        <script src="${server.baseUrl}/widget.js" defer></script></body></html>`;
      const { context, page } = await open(
        '/api-page',
        html
          .replace(
            'defer></script>',
            'defer></script><script>window.addEventListener("load", () => { window.events = []; Docent.init({ domain: "docs", key: "KEY", fp: "reader-7", theme: "dark" }); Docent.on("answer", (d) => events.push(["answer", d])); Docent.on("open", () => events.push(["open"])); });</script>',
          )
          .replace('KEY', docsKey),
      ).catch(async () => {
        throw new Error('the page did not load');
      });
      void context;
      const sent: { currentPath?: string; fp?: string; threadId?: string }[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/v2/assistant/docs/message')) sent.push(request.postDataJSON());
      });
      await page.evaluate(
        `Docent.update({ currentPath: 'guides/cli' }); Docent.ask('How do I ingest my docs?')`,
      );
      await waitForAnswer(page);
      const events = (await page.evaluate('window.events')) as [
        string,
        { text?: string; sources?: unknown[] }?,
      ][];
      expect(events.map(([name]) => name)).toEqual(['open', 'answer']);
      expect(events[1]?.[1]?.text?.length).toBeGreaterThan(20);
      expect(sent[0]).toMatchObject({
        currentPath: 'guides/cli',
        fp: 'reader-7',
        filter: { language: 'de' },
      });
      expect(await page.locator('docent-assistant').getAttribute('data-theme')).toBe('dark');
      // The reader signs in: the next question starts a new conversation under the new fingerprint
      // (before: "This conversation has ended", as the server keeps a thread to its first fingerprint).
      const firstThread = (await storedChat(page, 'docs'))?.threadId;
      await page.evaluate(
        `Docent.update({ fp: 'signed-in-user-7' }); Docent.ask('How do I rotate an API key?')`,
      );
      await waitForAnswer(page);
      expect(sent.at(-1)).toMatchObject({ fp: 'signed-in-user-7' });
      expect(sent.at(-1)?.threadId).toBeUndefined();
      const signedIn = await storedChat(page, 'docs');
      expect(signedIn?.threadId).toMatch(/^thr_/);
      expect(signedIn?.threadId).not.toBe(firstThread);
      expect(signedIn?.messages.map((m) => [m.role, m.status])).toEqual([
        ['user', 'done'],
        ['assistant', 'done'],
      ]);
      // A router that swaps the whole body (Turbo) keeps the assistant, its open panel and the
      // reader's conversation.
      await page.evaluate(`(() => {
        const next = document.createElement('body');
        next.innerHTML = '<h1>Next page</h1>';
        document.documentElement.replaceChild(next, document.body);
      })()`);
      expect(await page.locator('body > docent-assistant').count()).toBe(1);
      await expect.poll(() => page.locator('docent-assistant .answer').count()).toBe(1);
      expect(await page.locator('docent-assistant .answer').last().isVisible()).toBe(true);
      await page.evaluate('Docent.reset()');
      expect(await page.locator('docent-assistant .answer').count()).toBe(0);
      await page.evaluate('Docent.close()');
      await expect.poll(() => page.locator('docent-assistant .launcher').isVisible()).toBe(true);
      // Back to a page a router cached as a copy of its body (Turbo's snapshot): the copy's element
      // leaves, the live one comes along, one widget.
      await page.evaluate(
        `document.documentElement.replaceChild(document.body.cloneNode(true), document.body)`,
      );
      await expect.poll(() => page.locator('docent-assistant').count()).toBe(1);
      expect(await page.evaluate('document.querySelector("docent-assistant") === Docent.element')).toBe(true);
      expect(await page.locator('docent-assistant').getAttribute('data-turbo-temporary')).toBe('');
      // The page takes the widget out itself: a later body swap does not bring it back.
      await page.evaluate(`Docent.element.remove()`);
      await page.evaluate(
        `document.documentElement.replaceChild(document.createElement('body'), document.body)`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await page.locator('docent-assistant').count()).toBe(0);
      await page.evaluate('Docent.close(); Docent.destroy()');
      expect(await page.locator('docent-assistant').count()).toBe(0);
      // Destroyed is destroyed: the next body swap brings nothing back.
      await page.evaluate(
        `document.documentElement.replaceChild(document.createElement('body'), document.body)`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await page.locator('docent-assistant').count()).toBe(0);
      await context.close();
    });

    it("speaks the site's language: labels from Docent.init or data-labels, English where one is left out", async () => {
      const labels = {
        launcher: "Demander à l'IA",
        title: 'Demandez à la doc',
        placeholder: 'Posez une question…',
        yourQuestion: 'Votre question',
        send: 'Envoyer',
        sendQuestion: 'Envoyer la question',
        sources: 'Sources citées',
        wasThisHelpful: 'Cette réponse vous a-t-elle aidé ?',
        helpful: 'Utile',
        copyCode: 'Copier le code',
        citation: 'Source {number} : {title}',
        notALabel: 'ignored',
        newChat: 42,
      };
      const html = `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Docs</title></head><body><h1>Docs</h1>
        <script src="${server.baseUrl}/widget.js" defer></script>
        <script>window.addEventListener("load", () => Docent.init({ domain: "docs", key: "${docsKey}", title: undefined, labels: ${JSON.stringify(labels)} }));</script></body></html>`;
      const { context, page } = await open('/fr', html);
      const launcher = page.locator('docent-assistant .launcher');
      await expect.poll(() => launcher.innerText()).toContain("Demander à l'IA");
      await launcher.click();
      const input = page.getByRole('textbox', { name: 'Votre question' });
      expect(await input.getAttribute('placeholder')).toBe('Posez une question…');
      // Given the site's name, the title still takes the site's own words for it.
      expect(await page.locator('docent-assistant #docent-title').innerText()).toBe('Demandez à la doc');
      // A label the site left out, or set to something that is not text, stays English.
      expect(await page.getByRole('button', { name: 'New chat' }).isVisible()).toBe(true);
      await input.fill('How do I ingest my docs?');
      await page.getByRole('button', { name: 'Envoyer la question' }).click();
      await waitForAnswer(page);
      const answer = page.locator('docent-assistant .answer').last();
      expect(await answer.locator('.sources h3').textContent()).toBe('Sources citées');
      expect(await answer.getByText('Cette réponse vous a-t-elle aidé ?').isVisible()).toBe(true);
      expect(await answer.getByRole('button', { name: 'Utile' }).isVisible()).toBe(true);
      expect(await answer.getByRole('button', { name: 'Not helpful' }).isVisible()).toBe(true);
      const cite = answer.locator('a.cite').first();
      expect(await cite.getAttribute('aria-label')).toMatch(/^Source \d+ : \S/);
      await context.close();

      // The same from the script tag; a data-labels that is not JSON leaves the English words.
      const tag = (attribute: string) =>
        `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Docs</title></head><body><h1>Docs</h1>
        <script src="${server.baseUrl}/widget.js" data-domain="docs" data-key="${docsKey}" data-labels='${attribute}' defer></script></body></html>`;
      const fromTag = await open(
        '/fr-tag',
        tag(JSON.stringify({ launcher: 'Demander', askAboutThis: 'Demander à ce sujet' })),
      );
      await expect
        .poll(() => fromTag.page.locator('docent-assistant .launcher').innerText())
        .toContain('Demander');
      await fromTag.context.close();
      const broken = await open('/fr-broken', tag('{launcher: Demander'));
      const warnings: string[] = [];
      broken.page.on('console', (message) => {
        if (message.type() === 'warning') warnings.push(message.text());
      });
      await broken.page.reload();
      await expect
        .poll(() => broken.page.locator('docent-assistant .launcher').innerText())
        .toContain('Ask AI');
      expect(warnings).toContain('Docent: data-labels is not JSON');
      await broken.context.close();
    });
  });
});
