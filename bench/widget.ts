/**
 * npm run bench:widget [-- --runs N]
 * What the reader's widget costs a docs page. Builds `widget.js` from widget/src (scripts/build-widget.mjs)
 * and prints its size raw, gzipped and brotli'd next to the 40 KB gzip budget. Then loads a plain docs
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
const file = buildTestWidget();
const body = fs.readFileSync(file);
const gzip = gzipSync(body, { level: 9 }).length;
const brotli = brotliCompressSync(body).length;
console.log(`widget benchmark; machine: ${os.cpus().length} cores, Node ${process.version}, ${chromium}`);
console.log(
  `size: ${(body.length / 1024).toFixed(1)} KB raw, ${(gzip / 1024).toFixed(1)} KB gzip, ` +
    `${(brotli / 1024).toFixed(1)} KB brotli  (budget < ${GZIP_BUDGET / 1024} KB gzip: ${gzip < GZIP_BUDGET ? 'met' : 'NOT met'})`,
);

const host = await startHostPages();
host.set('/widget.js', body, 'text/javascript; charset=utf-8');
host.set('/docs', hostPage({ docentUrl: host.origin, domain: 'bench', key: 'svc_dsc_bench' }));
const browser = await launchChromium(chromium);
try {
  for (const throttle of [1, 4]) {
    const timings: number[] = [];
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      if (throttle > 1) {
        const cdp = await context.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
      }
      await page.goto(`${host.origin}/docs`);
      await page.waitForFunction(`performance.getEntriesByName('docent:launcher-frame').length > 0`);
      const ms = (await page.evaluate(`(() => {
        const script = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/widget.js'));
        return performance.getEntriesByName('docent:launcher-frame')[0].startTime - script.responseEnd;
      })()`)) as number;
      timings.push(ms);
      await context.close();
    }
    timings.sort((a, b) => a - b);
    console.log(
      `launcher in a frame after the script arrived, CPU ${throttle}×: p50 ${percentile(timings, 50).toFixed(1)} ms  ` +
        `p95 ${percentile(timings, 95).toFixed(1)} ms  max ${(timings.at(-1) ?? 0).toFixed(1)} ms over ${runs} loads  ` +
        `(budget < ${PAINT_BUDGET_MS} ms: ${percentile(timings, 95) < PAINT_BUDGET_MS ? 'met' : 'NOT met'} at p95)`,
    );
  }
} finally {
  await browser.close();
  await host.close();
  fs.rmSync(file, { force: true });
}
