/**
 * npm run bench:console-ui [-- --threads 5000 --runs 5]
 * How soon each console screen paints on a big site: seeds `--threads` threads per organization for two
 * organizations (10,000 in all by default) with `seedAnalytics` into a temporary SQLite database, starts
 * the compiled server on it (`npm start`'s path), signs in to the console in Debian's Chromium
 * (playwright-core) with the first organization's admin key, and loads each screen `--runs` times.
 * Prints per screen the first contentful paint and the load event (Navigation/Paint Timing, from the
 * navigation's start: the server's work included) as p50 and max, next to the 1 s target. Asserts nothing.
 */
import { openStorage } from '../src/storage/database.ts';
import { createTemporaryDatabase } from '../src/storage/temporary-database.ts';
import { launchChromium } from '../src/testing/browser.ts';
import { seedAnalytics } from '../src/testing/seed-analytics.ts';
import { findTestChromium, readTestServiceSettings } from '../src/testing/test-services.ts';
import { startDocentServer, stopProcess } from './lib/processes.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  Number(args[args.indexOf(`--${name}`) + 1] ?? 0) || fallback;
const threads = option('threads', 5_000);
const runs = option('runs', 5);
const TARGET_MS = 1_000;

const temporary = await createTemporaryDatabase('sqlite');
const storage = await openStorage(temporary.url);
const seeded = await seedAnalytics(storage, { organizations: 2, threadsPerOrganization: threads });
await storage.close();
const first = seeded.organizations[0];
if (!first) throw new Error('nothing seeded');
const server = await startDocentServer(temporary.url, { DOCENT_DEMO_PAGE: 'false' });
const browser = await launchChromium(findTestChromium({ ...readTestServiceSettings(), ci: true }).path ?? '');
try {
  console.log(
    `console paint benchmark: ${seeded.threads.toLocaleString('en-US')} threads, ${seeded.messages.toLocaleString('en-US')} messages in two organizations (SQLite); ${runs} loads per screen`,
  );
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.value}/console/login`);
  await page.getByLabel('Admin key').fill(first.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/console/login');
  const screens = [
    '/console',
    '/console/conversations',
    '/console/gaps',
    '/console/questions',
    '/console/pages',
    '/console/feedback',
    '/console/usage',
  ];
  for (const screen of screens) {
    const paints: number[] = [];
    const loads: number[] = [];
    for (let i = 0; i < runs; i++) {
      await page.goto(`${server.value}${screen}`, { waitUntil: 'load' });
      // Paint entries are recorded after the frame, so possibly after the load event (polled from here:
      // the console's CSP rightly refuses the page-side polling `waitForFunction` would evaluate).
      for (let tries = 0; tries < 100; tries++) {
        if (await page.evaluate(`performance.getEntriesByName('first-contentful-paint').length > 0`)) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const [paint, load] = (await page.evaluate(
        `[performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN, performance.getEntriesByType('navigation')[0].loadEventEnd]`,
      )) as [number, number];
      paints.push(paint);
      loads.push(load);
    }
    const p50 = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    const worst = Math.max(...paints);
    console.log(
      `${screen.padEnd(24)} first paint p50 ${p50(paints).toFixed(0).padStart(4)} ms, max ${worst.toFixed(0).padStart(4)} ms · load p50 ${p50(loads).toFixed(0).padStart(4)} ms  (target < ${TARGET_MS} ms: ${worst < TARGET_MS ? 'met' : 'NOT met'})`,
    );
  }
  await context.close();
} finally {
  await browser.close();
  await stopProcess(server.child);
  await temporary.remove();
}
