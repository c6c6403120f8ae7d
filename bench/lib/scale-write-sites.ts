/**
 * Child process of `npm run bench:scale` that creates the many-sites set in one process, through the
 * library of the tree under test (its compiled dist/, imported by path, so the baseline's sites are
 * written by the baseline's code): the `free` plan is lifted to limits no run reaches, then for each
 * planned site its folder is written, `bootstrapSite` runs (organization + site + ingestion + assistant
 * key, what `docent init` does) and the folder is removed again. A loop of `docent init` processes would
 * pay Node's start, the migrations check and the worker pool's start-up a thousand times.
 *
 *   node --import tsx bench/lib/scale-write-sites.ts <job.json> <result.json>   (cwd: the tree's root)
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PlannedSite } from './scale-corpus.ts';

export interface WriteSitesJob {
  root: string;
  databaseUrl: string;
  corporaDir: string;
  workDir: string;
  sites: PlannedSite[];
}

export interface WrittenSite {
  domain: string;
  assistantKey: string;
  pages: number;
  warnings: number;
}

export interface WriteSitesResult {
  sites: WrittenSite[];
  seconds: number;
  pages: number;
}

interface StorageLike {
  close(): Promise<void>;
}

interface DatabaseModule {
  openStorage(url: string): Promise<StorageLike>;
}

interface BootstrapModule {
  bootstrapSite(
    storage: StorageLike,
    input: { domain: string; docsDir: string },
  ): Promise<{ assistantKey: string; ingestion: { counts: { pages: number }; warnings: unknown[] } }>;
}

interface PlansModule {
  upsertPlan(storage: StorageLike, id: string, input: Record<string, number>): Promise<unknown>;
}

async function load<T>(root: string, module: string): Promise<T> {
  return (await import(pathToFileURL(path.join(root, 'dist', module)).href)) as T;
}

async function main(): Promise<void> {
  const [jobFile, resultFile] = process.argv.slice(2);
  if (!jobFile || !resultFile) throw new Error('usage: scale-write-sites.ts <job.json> <result.json>');
  const job = JSON.parse(fs.readFileSync(jobFile, 'utf8')) as WriteSitesJob;
  const { openStorage } = await load<DatabaseModule>(job.root, 'storage/database.js');
  const { bootstrapSite } = await load<BootstrapModule>(job.root, 'tenancy/bootstrap-site.js');
  const { upsertPlan } = await load<PlansModule>(job.root, 'tenancy/plans.js');
  const storage = await openStorage(job.databaseUrl);
  const started = performance.now();
  const written: WrittenSite[] = [];
  let pages = 0;
  try {
    await upsertPlan(storage, 'free', {
      monthlyCredits: 1_000_000_000,
      orgRequestsPerHour: 1_000_000_000,
      ipRequestsPerDay: 1_000_000_000,
    });
    for (const [i, site] of job.sites.entries()) {
      const dir = path.join(job.workDir, site.domain);
      for (const file of site.files) {
        const to = path.join(dir, site.domain, file);
        fs.mkdirSync(path.dirname(to), { recursive: true });
        fs.copyFileSync(path.join(job.corporaDir, site.corpus, file), to);
      }
      const result = await bootstrapSite(storage, { domain: site.domain, docsDir: dir });
      fs.rmSync(dir, { recursive: true, force: true });
      pages += result.ingestion.counts.pages;
      written.push({
        domain: site.domain,
        assistantKey: result.assistantKey,
        pages: result.ingestion.counts.pages,
        warnings: result.ingestion.warnings.length,
      });
      if ((i + 1) % 25 === 0 || i + 1 === job.sites.length) {
        const seconds = (performance.now() - started) / 1000;
        process.stderr.write(
          `  sites written: ${i + 1}/${job.sites.length}, ${pages} pages, ${(pages / seconds).toFixed(0)} pages/s\n`,
        );
      }
    }
  } finally {
    await storage.close();
  }
  const result: WriteSitesResult = { sites: written, seconds: (performance.now() - started) / 1000, pages };
  fs.writeFileSync(resultFile, JSON.stringify(result));
}

await main();
