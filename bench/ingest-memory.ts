/**
 * npx tsx --max-semi-space-size=32 bench/ingest-memory.ts <docs-dir> [--no-share] [--postgres <url>]
 *
 * One cold ingestion of a (large) docs folder into a fresh database, through `ingestSite` as the CLI runs
 * it, then an unchanged re-ingest and a one-page re-ingest; prints seconds, pages per second, the pages
 * that took an identical page's parse instead of being parsed (src/ingest/duplicate-pages.ts), this
 * process's peak RSS (page workers included: they are threads of it) and the load average, so figures
 * are read against how busy the machine was. `--no-share` parses every page, to tell what shared parses
 * contribute from what the pipeline does. The folder itself is not changed: the one-page run edits a copy
 * of one page in place and restores it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ingestSite } from '../src/ingest/ingest-site.ts';
import { openStorage } from '../src/storage/database.ts';
import { createOrganization } from '../src/tenancy/organizations.ts';
import { createSite } from '../src/tenancy/sites.ts';

const args = process.argv.slice(2);
const dir = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--postgres');
if (dir === undefined) {
  console.error('usage: bench/ingest-memory.ts <docs-dir> [--no-share] [--postgres <url>]');
  process.exit(2);
}
const shareParses = !args.includes('--no-share');
const postgresAt = args.indexOf('--postgres');
const postgresUrl = postgresAt >= 0 ? args[postgresAt + 1] : undefined;

const loadAverage = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const peakRssMb = (): number => process.resourceUsage().maxRSS / 1024;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-ingest-memory-'));
let databaseUrl = `sqlite:${path.join(tmp, 'docent.db')}`;
let dropDatabase = async (): Promise<void> => {};
if (postgresUrl !== undefined) {
  const { default: pg } = await import('pg');
  const name = `docent_ingest_memory_${process.pid}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
  dropDatabase = async () => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    await client.query(`drop database if exists ${name} with (force)`);
    await client.end();
  };
}

const storage = await openStorage(databaseUrl);
try {
  const org = await createOrganization(storage, { name: 'bench' });
  const site = await createSite(storage, { organizationId: org.id, domain: 'ingest-memory' });
  console.log(
    `ingest-memory: ${dir}; ${storage.dialect}; shared parses ${shareParses ? 'on' : 'off'}; ` +
      `${os.cpus().length} cores, Node ${process.version}; load average before ${loadAverage()}`,
  );
  const run = async (label: string): Promise<void> => {
    const started = performance.now();
    const result = await ingestSite(storage, site.id, dir, { shareParses });
    const seconds = (performance.now() - started) / 1000;
    const { counts } = result;
    console.log(
      `${label.padEnd(16)} ${seconds.toFixed(1)} s  ${Math.round(counts.pages / seconds)} pages/s  ` +
        `(${counts.pages} pages: ${counts.added} added, ${counts.updated} updated, ${counts.unchanged} unchanged; ` +
        `${counts.chunksWritten} chunks written; ${result.sharedParses ?? 0} shared parses)  ` +
        `peak RSS so far ${Math.round(peakRssMb())} MB  load average ${loadAverage()}`,
    );
  };
  await run('cold');
  await run('unchanged');
  const page = (await storage.db.selectFrom('pages').select('path').where('site_id', '=', site.id).execute())
    .map((row) => row.path)
    .sort()[0];
  const file = ['.mdx', '.md'].map((ext) => path.join(dir, `${page}${ext}`)).find((f) => fs.existsSync(f));
  if (file !== undefined) {
    const original = fs.readFileSync(file);
    fs.appendFileSync(file, '\n\nOne more sentence about benchmarks.\n');
    try {
      await run('one page changed');
    } finally {
      fs.writeFileSync(file, original);
    }
  }
  if (storage.dialect === 'sqlite') {
    const size = fs.statSync(path.join(tmp, 'docent.db')).size;
    console.log(`database file ${(size / 1e6).toFixed(0)} MB`);
  }
} finally {
  await storage.close();
  await dropDatabase();
  fs.rmSync(tmp, { recursive: true, force: true });
}
