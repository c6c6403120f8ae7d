/**
 * Ingestion throughput: a corpus is copied to a temp folder and ingested into a fresh database three
 * times — cold (empty database), again with nothing changed, and again after one page was edited in the
 * copy — each through `ingestSite`, the same job the CLI and the admin API run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RACY_MS } from '../../src/ingest/contained-file.ts';
import { ingestSite } from '../../src/ingest/ingest-site.ts';
import { openStorage } from '../../src/storage/database.ts';
import { createTemporaryDatabase, type TemporaryDatabase } from '../../src/storage/temporary-database.ts';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { createSite } from '../../src/tenancy/sites.ts';
import { putOnUnlimitedPlan } from './bench-plan.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface IngestRun {
  run: 'cold' | 'unchanged' | 'one page changed';
  seconds: number;
  /** Pages the site has after the run. */
  pages: number;
  /** Pages written (added + updated). */
  written: number;
  /** Pages known unchanged by their source stamps, without being read (src/ingest/source-stamps.ts). */
  byStamp: number;
  pagesPerSecond: number;
}

export interface IngestionMeasurement {
  corpus: string;
  dialect: Dialect;
  runs: IngestRun[];
  /** The page edited for the third run (a page id). */
  changedPage: string | null;
}

/** A database left behind on request, holding the ingested corpus and an assistant key for its site. */
export interface KeptSite {
  databaseUrl: string;
  domain: string;
  assistantKey: string;
  temporary: TemporaryDatabase;
}

export interface IngestionOptions {
  dialect: Dialect;
  /** PostgreSQL server URL, for `postgres`. */
  serverUrl?: string;
  runs?: readonly IngestRun['run'][];
  /** Keep the database (and create an assistant key) for a later benchmark; the caller removes it. */
  keep?: boolean;
}

const ALL_RUNS: readonly IngestRun['run'][] = ['cold', 'unchanged', 'one page changed'];

export const BENCH_DOMAIN = 'bench';

export async function measureIngestion(
  corpusDir: string,
  options: IngestionOptions,
): Promise<IngestionMeasurement & { kept?: KeptSite }> {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-bench-corpus-'));
  // As a checkout a few seconds old: a file modified or changed (a copy is) in the two seconds before it
  // is read gets no stamp (contained-file.ts RACY_MS), so without the wait the next run would read again
  // whatever the cold run read first.
  fs.cpSync(corpusDir, copy, { recursive: true, preserveTimestamps: true });
  await sleep(RACY_MS + 100);
  const temporary = await createTemporaryDatabase(options.dialect, options.serverUrl);
  const storage = await openStorage(temporary.url);
  let keep = false;
  try {
    const org = await createOrganization(storage, { name: BENCH_DOMAIN });
    const site = await createSite(storage, { organizationId: org.id, domain: BENCH_DOMAIN });
    const runs: IngestRun[] = [];
    let changedPage: string | null = null;
    for (const run of options.runs ?? ALL_RUNS) {
      if (run === 'one page changed') changedPage = await editOnePage(storage, site.id, copy);
      const started = performance.now();
      const result = await ingestSite(storage, site.id, copy);
      const seconds = (performance.now() - started) / 1000;
      runs.push({
        run,
        seconds,
        pages: result.counts.pages,
        written: result.counts.added + result.counts.updated,
        byStamp: result.pagesByStamp ?? 0,
        pagesPerSecond: result.counts.pages / seconds,
      });
    }
    const measurement = { corpus: path.basename(corpusDir), dialect: options.dialect, runs, changedPage };
    if (!options.keep) return measurement;
    await putOnUnlimitedPlan(storage, org.id);
    const { key } = await createApiKey(storage, {
      organizationId: org.id,
      siteId: site.id,
      kind: 'assistant',
      name: 'bench',
    });
    keep = true;
    return {
      ...measurement,
      kept: { databaseUrl: temporary.url, domain: BENCH_DOMAIN, assistantKey: key, temporary },
    };
  } finally {
    await storage.close();
    if (!keep) await temporary.remove();
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/** Appends a paragraph to the first stored page's source file in the copy; returns the page id. */
async function editOnePage(
  storage: Awaited<ReturnType<typeof openStorage>>,
  siteId: string,
  dir: string,
): Promise<string> {
  const pages = await storage.db
    .selectFrom('pages')
    .select('path')
    .where('site_id', '=', siteId)
    .orderBy('path')
    .execute();
  for (const { path: page } of pages) {
    for (const ext of ['.mdx', '.md']) {
      const file = path.join(dir, `${page}${ext}`);
      if (!fs.existsSync(file)) continue;
      fs.chmodSync(file, 0o644);
      fs.appendFileSync(file, '\n\nA paragraph added by the ingestion benchmark to change this page.\n');
      return page;
    }
  }
  throw new Error(`no stored page of ${dir} has a source file to edit`);
}
