/**
 * npm run bench:widget [-- --runs N]
 * What the reader's widget costs a docs page. Builds it from widget/src (scripts/build-widget.mjs) and
 * prints the size of the launcher (`widget.js`, what the page's script tag loads) and of the panel it
 * loads once it has painted, raw, gzipped and brotli'd, next to the 40 KB gzip budget for both. Then loads a plain docs
 * page that embeds it with the one script tag, N times (fresh browser context each, nothing cached), in
 * Debian's Chromium through playwright-core, and prints how long after the script's response ended the
 * launcher was in a frame: from the Resource Timing `responseEnd` of widget.js to the animation frame
 * after the launcher was added (the frame that paints it; parse, compile and run included). Once as the
 * machine runs, once with Chromium's CPU throttled 4× (a mid-range phone), next to the 50 ms budget.
 * The page and the script come from a loopback server; no Docent server is needed to paint the launcher.
 * Asserts nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { hostPage, launchChromium, startHostPages } from '../src/testing/browser.ts';
import { findTestChromium, readTestServiceSettings } from '../src/testing/test-services.ts';
import { buildTestWidget } from '../src/testing/test-widget.ts';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] ?? 0) || 40;
const GZIP_BUDGET = 40 * 1024;
const PAINT_BUDGET_MS = 50;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const chromium = findTestChromium({ ...readTestServiceSettings(), ci: true }).path ?? '';
const dir = buildTestWidget();
const body = fs.readFileSync(path.join(dir, 'widget.js'));
const panelFile = fs.readdirSync(dir).find((name) => name.startsWith('panel-')) ?? '';
const panel = fs.readFileSync(path.join(dir, panelFile));
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const sizes = (bytes: Buffer) => [
  bytes.length,
  gzipSync(bytes, { level: 9 }).length,
  brotliCompressSync(bytes).length,
];
const [launcherRaw = 0, launcherGzip = 0, launcherBrotli = 0] = sizes(body);
const [panelRaw = 0, panelGzip = 0, panelBrotli = 0] = sizes(panel);
const total = launcherGzip + panelGzip;
console.log(`widget benchmark; machine: ${os.cpus().length} cores, Node ${process.version}, ${chromium}`);
console.log(
  `widget.js (launcher): ${kb(launcherRaw)} raw, ${kb(launcherGzip)} gzip, ${kb(launcherBrotli)} brotli`,
);
console.log(
  `${panelFile} (loaded after the launcher paints): ${kb(panelRaw)} raw, ${kb(panelGzip)} gzip, ${kb(panelBrotli)} brotli`,
);
console.log(
  `whole widget: ${kb(total)} gzip, ${kb(launcherBrotli + panelBrotli)} brotli  ` +
    `(budget < ${GZIP_BUDGET / 1024} KB gzip: ${total < GZIP_BUDGET ? 'met' : 'NOT met'})`,
);

const host = await startHostPages();
host.set('/widget.js', body, 'text/javascript; charset=utf-8');
host.set(`/widget/${panelFile}`, panel, 'text/javascript; charset=utf-8');
host.set('/docs', hostPage({ docentUrl: host.origin, domain: 'bench', key: 'svc_dsc_bench' }));
// The floor: the same page whose script only adds a plain button and marks the next frame.
host.set(
  '/floor.js',
  `const b = document.createElement('button'); b.textContent = 'Ask AI'; b.style.cssText = 'position:fixed;right:20px;bottom:20px';
document.body.append(b); requestAnimationFrame(() => performance.mark('docent:launcher-frame'));`,
  'text/javascript; charset=utf-8',
);
host.set(
  '/floor',
  hostPage({ docentUrl: host.origin, domain: 'bench', key: 'svc_dsc_bench' }).replace(
    '/widget.js',
    '/floor.js',
  ),
);
const browser = await launchChromium(chromium);
try {
  for (const [throttle, pagePath, label] of [
    [1, '/docs', 'widget'],
    [1, '/floor', 'floor: a 3-line script adding a button'],
    [4, '/docs', 'widget'],
    [4, '/floor', 'floor: a 3-line script adding a button'],
  ] as const) {
    const timings: number[] = [];
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      if (throttle > 1) {
        const cdp = await context.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
      }
      await page.goto(`${host.origin}${pagePath}`);
      await page.waitForFunction(`performance.getEntriesByName('docent:launcher-frame').length > 0`);
      const ms = (await page.evaluate(`(() => {
        const script = performance.getEntriesByType('resource').find((e) => /\\/(widget|floor)\\.js$/.test(e.name));
        return performance.getEntriesByName('docent:launcher-frame')[0].startTime - script.responseEnd;
      })()`)) as number;
      timings.push(ms);
      await context.close();
    }
    timings.sort((a, b) => a - b);
    console.log(
      `${label.padEnd(40)} CPU ${throttle}×: in a frame after the script arrived p50 ${percentile(timings, 50).toFixed(1)} ms  ` +
        `p95 ${percentile(timings, 95).toFixed(1)} ms  max ${(timings.at(-1) ?? 0).toFixed(1)} ms over ${runs} loads  ` +
        (label === 'widget'
          ? `(budget < ${PAINT_BUDGET_MS} ms: ${percentile(timings, 95) < PAINT_BUDGET_MS ? 'met' : 'NOT met'} at p95)`
          : ''),
    );
  }
} finally {
  await browser.close();
  await host.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
