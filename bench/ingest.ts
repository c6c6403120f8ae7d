/**
 * npm run bench:ingest [-- <docs-dir>] [--postgres]
 * Ingests a docs folder (default ../shared/corpora/mintlify-docs) into a fresh database, cold, then
 * again with nothing changed, and prints wall-clock seconds and pages per second for each.
 */
import os from 'node:os';
import { loadConfig } from '../src/config.ts';
import { ingestSite } from '../src/ingest/ingest-site.ts';
import { openStorage } from '../src/storage/database.ts';
import { createTemporaryDatabase } from '../src/storage/temporary-database.ts';
import { createOrganization } from '../src/tenancy/organizations.ts';
import { createSite } from '../src/tenancy/sites.ts';
import { corpusDir } from '../src/testing/paths.ts';

const args = process.argv.slice(2);
const dialect = args.includes('--postgres') ? 'postgres' : 'sqlite';
const dir = args.find((a) => !a.startsWith('--')) ?? corpusDir('mintlify-docs');
const TARGET_SECONDS = 10;

const temporary = await createTemporaryDatabase(dialect, loadConfig().testPostgresUrl);
const storage = await openStorage(temporary.url);
try {
  const org = await createOrganization(storage, { name: 'bench' });
  const site = await createSite(storage, { organizationId: org.id, domain: 'bench' });
  const runs: { run: string; seconds: number; pages: number; written: number }[] = [];
  for (const run of ['cold', 'unchanged']) {
    const started = performance.now();
    const result = await ingestSite(storage, site.id, dir);
    const seconds = (performance.now() - started) / 1000;
    runs.push({
      run,
      seconds,
      pages: result.counts.pages,
      written: result.counts.added + result.counts.updated,
    });
  }
  console.log(`ingest benchmark: ${dir}`);
  console.log(`database: ${dialect}; machine: ${os.cpus().length} cores, Node ${process.version}`);
  for (const r of runs) {
    console.log(
      `${r.run.padEnd(9)} ${r.seconds.toFixed(2)} s  ${Math.round(r.pages / r.seconds)} pages/s  ` +
        `(${r.pages} pages, ${r.written} written)${r.run === 'cold' ? `  target < ${TARGET_SECONDS} s` : ''}`,
    );
  }
} finally {
  await storage.close();
  await temporary.remove();
}
