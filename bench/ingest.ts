/**
 * npm run bench:ingest [-- <docs-dir>] [--postgres]
 * Ingests a docs folder (default ../shared/corpora/mintlify-docs) into a fresh database, cold, then
 * again with nothing changed, then with one page changed, and prints wall-clock seconds and pages per
 * second for each (bench/lib/ingestion.ts; `npm run bench` runs it on every corpus).
 */
import os from 'node:os';
import { corpusDir } from '../src/testing/paths.ts';
import { readTestServiceSettings } from '../src/testing/test-services.ts';
import { measureIngestion } from './lib/ingestion.ts';

const args = process.argv.slice(2);
const dialect = args.includes('--postgres') ? 'postgres' : 'sqlite';
const dir = args.find((a) => !a.startsWith('--')) ?? corpusDir('mintlify-docs');
const TARGET_SECONDS = 10;

const { runs, changedPage } = await measureIngestion(dir, {
  dialect,
  serverUrl: readTestServiceSettings().postgresUrl,
});
console.log(`ingest benchmark: ${dir}`);
console.log(`database: ${dialect}; machine: ${os.cpus().length} cores, Node ${process.version}`);
for (const r of runs) {
  console.log(
    `${r.run.padEnd(16)} ${r.seconds.toFixed(2)} s  ${Math.round(r.pagesPerSecond)} pages/s  ` +
      `(${r.pages} pages, ${r.written} written)${r.run === 'cold' ? `  target < ${TARGET_SECONDS} s` : ''}`,
  );
}
console.log(`changed page: ${changedPage}`);
