/**
 * npm run bench:llms [-- <docs-dir>] [--postgres] [--runs N]
 * How long generating a site's llms.txt and llms-full.txt takes (src/pages/llms-txt.ts), on
 * ../shared/corpora/mintlify-docs by default (980 indexed pages, four languages). Ingests the folder
 * into a fresh temporary database (SQLite unless --postgres), then generates each file N times through
 * the use case (the same snapshot reads and rendering the route runs), and once each through HTTP with
 * `app.request()` on the full app (routing, site lookup, ETag check included), then N times through HTTP
 * with a new Host each time (no DOCENT_PUBLIC_URL: links from the request). Prints p50 and max
 * milliseconds, bytes and page counts next to the bar: llms-full.txt of mintlify-docs in
 * under 1 s. Asserts nothing.
 */
import os from 'node:os';
import { pino } from 'pino';
import { createApp } from '../src/app.ts';
import { generateLlmsFullTxt, generateLlmsTxt, type LlmsText } from '../src/pages/llms-txt.ts';
import { SiteSearch } from '../src/search/site-search.ts';
import { openStorage } from '../src/storage/database.ts';
import { createTemporaryDatabase } from '../src/storage/temporary-database.ts';
import { bootstrapSite } from '../src/tenancy/bootstrap-site.ts';
import { corpusDir } from '../src/testing/paths.ts';
import { readTestServiceSettings } from '../src/testing/test-services.ts';

const args = process.argv.slice(2);
const dialect = args.includes('--postgres') ? 'postgres' : 'sqlite';
const runs = Number(args[args.indexOf('--runs') + 1] ?? 0) || 20;
const dir =
  args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--runs') ?? corpusDir('mintlify-docs');
const DOCENT_URL = 'http://localhost:3000';
const TARGET_MS = 1_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const temporary = await createTemporaryDatabase(dialect, readTestServiceSettings().postgresUrl);
const storage = await openStorage(temporary.url);
try {
  const ingestStarted = performance.now();
  const { site } = await bootstrapSite(storage, { domain: 'bench', docsDir: dir });
  const ingestSeconds = (performance.now() - ingestStarted) / 1000;
  console.log(`llms.txt benchmark: ${dir}`);
  console.log(`database: ${dialect}; machine: ${os.cpus().length} cores, Node ${process.version}`);
  console.log(`ingested in ${ingestSeconds.toFixed(1)} s; ${runs} runs per file through the use case`);

  const files = [
    ['llms.txt', generateLlmsTxt],
    ['llms-full.txt', generateLlmsFullTxt],
  ] as const;
  for (const [name, generate] of files) {
    const timings: number[] = [];
    let last: LlmsText | undefined;
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      last = await generate(storage, site, DOCENT_URL);
      timings.push(performance.now() - started);
    }
    timings.sort((a, b) => a - b);
    const bytes = Buffer.byteLength(last?.text ?? '', 'utf8');
    const bar = name === 'llms-full.txt' ? `  (target < ${TARGET_MS} ms)` : '';
    console.log(
      `${name.padEnd(14)} use case  p50 ${percentile(timings, 50).toFixed(1)} ms  max ` +
        `${(timings.at(-1) ?? Number.NaN).toFixed(1)} ms  ${bytes.toLocaleString('en-US')} bytes  ` +
        `${last?.pages} of ${last?.total} pages${last?.cut ? ' (cut at the limit)' : ''}${bar}`,
    );
  }

  const app = createApp({ storage, search: new SiteSearch(storage), logger: pino({ level: 'silent' }) });
  for (const [name] of files) {
    const started = performance.now();
    const response = await app.request(`${DOCENT_URL}/sites/bench/${name}`);
    const body = await response.arrayBuffer();
    const ms = performance.now() - started;
    const bar = name === 'llms-full.txt' ? `  (target < ${TARGET_MS} ms)` : '';
    console.log(
      `${name.padEnd(14)} HTTP      ${ms.toFixed(1)} ms  status ${response.status}  ` +
        `${body.byteLength.toLocaleString('en-US')} bytes${bar}`,
    );
  }
  // Without DOCENT_PUBLIC_URL the links come from each request's Host: a new Host is rendered from
  // the kept template (a join), where it used to cost a generation (the use case rows above).
  for (const [name] of files) {
    const timings: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const response = await app.request(`${DOCENT_URL}/sites/bench/${name}`, {
        headers: { Host: `host-${i}.example:${3000 + i}` },
      });
      await response.arrayBuffer();
      timings.push(performance.now() - started);
    }
    timings.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(14)} HTTP, a new Host each request  p50 ${percentile(timings, 50).toFixed(1)} ms  ` +
        `max ${(timings.at(-1) ?? Number.NaN).toFixed(1)} ms  (compare: the use case p50 above)`,
    );
  }
} finally {
  await storage.close();
  await temporary.remove();
}
