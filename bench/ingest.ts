/**
 * npm run bench:ingest [-- <docs-dir>] [--postgres]
 * Ingests a docs folder (default ../shared/corpora/mintlify-docs) into a fresh database, cold, then
 * again with nothing changed, then with one page changed, and prints wall-clock seconds, pages per
 * second and MB of Markdown per second for each (bench/lib/ingestion.ts; `npm run bench` runs it on every
 * corpus), beside the raw parser's own single-thread throughput on the same files (bench/lib/parser-floor.ts).
 */
import os from 'node:os';
import { corpusDir } from '../src/testing/paths.ts';
import { readTestServiceSettings } from '../src/testing/test-services.ts';
import { measureIngestion } from './lib/ingestion.ts';
import { markdownBytes, measureParserFloor } from './lib/parser-floor.ts';

const args = process.argv.slice(2);
const dialect = args.includes('--postgres') ? 'postgres' : 'sqlite';
const dir = args.find((a) => !a.startsWith('--')) ?? corpusDir('mintlify-docs');
const TARGETS = { cold: 3, unchanged: 0.5, 'one page changed': 0.5 } as const;

const bytes = await markdownBytes(dir);
const { runs, changedPage } = await measureIngestion(dir, {
  dialect,
  serverUrl: readTestServiceSettings().postgresUrl,
});
const floor = await measureParserFloor(dir);
const threads = Math.min(4, os.availableParallelism());
console.log(`ingest benchmark: ${dir} (${(bytes / 1e6).toFixed(1)} MB of Markdown)`);
console.log(
  `database: ${dialect}; machine: ${os.cpus().length} cores, Node ${process.version}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
for (const r of runs) {
  console.log(
    `${r.run.padEnd(16)} ${r.seconds.toFixed(2)} s  ${Math.round(r.pagesPerSecond)} pages/s  ` +
      `${(bytes / 1e6 / r.seconds).toFixed(2)} MB/s  (${r.pages} pages, ${r.written} written, ${r.byStamp} unread by stamp)  target < ${TARGETS[r.run]} s`,
  );
}
console.log(
  `raw parser       ${floor.seconds.toFixed(2)} s  ${Math.round(floor.pagesPerSecond)} pages/s  ` +
    `${floor.megabytesPerSecond.toFixed(2)} MB/s  (${floor.files} files, one thread: parseSource only; ` +
    `with ${threads} parsing threads the floor is about ${(floor.seconds / threads).toFixed(2)} s)`,
);
console.log(`changed page: ${changedPage}`);
