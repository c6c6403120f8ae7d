/**
 * Child process of `npm run bench:scale` that creates the many-sites set in one process, through the
 * library of the tree under test (its compiled dist/, imported by path, so the baseline's sites are
 * written by the baseline's code). The `free` plan is lifted to limits no run reaches, then:
 * - `copy` (the default): each corpus's page files are ingested once into a template site, a few
 *   sampled sites are ingested for real, and every site gets its organization, site, job and key from
 *   the library and its pages and chunks as the template's rows under its own paths, its index from the
 *   library's storeSiteIndex; the sampled sites must match their real ingestion row for row, or the run
 *   fails (bench/lib/scale-copy-sites.ts says how and why that is exact). A tree whose library lacks
 *   a module this needs is written by ingestion instead, and the result says so.
 * - `ingestion` (--write-by-ingestion): for each planned site its folder is written, `bootstrapSite`
 *   runs (organization + site + ingestion + assistant key, what `docent init` does) and the folder is
 *   removed again: every site parses its pages itself (~50–90 pages/s on two cores, over an hour for
 *   the default 1,000 sites). A loop of `docent init` processes would also pay Node's start, the
 *   migrations check and the worker pool's start-up a thousand times.
 *
 *   node --import tsx bench/lib/scale-write-sites.ts <job.json> <result.json>   (cwd: the tree's root)
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Storage } from '../../src/storage/database.ts';
import { COPY_MODULES, type CopyLibrary, type CopyStats, copySites } from './scale-copy-sites.ts';
import type { PlannedSite } from './scale-corpus.ts';

export type WriteMode = 'copy' | 'ingestion';

export interface WriteSitesJob {
  root: string;
  databaseUrl: string;
  /** The copy writer's second database: its templates and the sampled sites' real ingestions. */
  checkDatabaseUrl: string;
  corporaDir: string;
  workDir: string;
  sites: PlannedSite[];
  mode: WriteMode;
  /** Sites the copy writer also ingests for real and compares with their copies. */
  checkSites: number;
  seed: number;
}

export interface WrittenSite {
  domain: string;
  assistantKey: string;
  pages: number;
  /** Page warnings of its ingestion; null for a copied site (no parse ran). */
  warnings: number | null;
  how: 'copied' | 'ingested';
}

export interface WriteSitesResult {
  sites: WrittenSite[];
  seconds: number;
  pages: number;
  mode: WriteMode;
  /** Why a copy was asked for and sites were ingested instead (the tree's library lacks a module). */
  modeNote: string | null;
  copy: CopyStats | null;
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

/** The copy writer's modules, or why this tree cannot copy (an older library lacks one). */
async function copyLibrary(root: string): Promise<CopyLibrary | string> {
  const lib: Partial<Record<keyof CopyLibrary, unknown>> = {};
  for (const [name, module] of Object.entries(COPY_MODULES)) {
    if (!fs.existsSync(path.join(root, 'dist', module))) return `dist/${module} is missing`;
    lib[name as keyof CopyLibrary] = await load(root, module);
  }
  const { siteIndex } = lib as CopyLibrary;
  if (typeof siteIndex.storeSiteIndex !== 'function') return 'the library has no storeSiteIndex';
  return lib as CopyLibrary;
}

const log = (line: string) => process.stderr.write(`  ${line}\n`);

function progress(total: number, started: number): (done: number, pages: number) => void {
  return (done, pages) => {
    if (done % 25 !== 0 && done !== total) return;
    const seconds = (performance.now() - started) / 1000;
    log(`sites written: ${done}/${total}, ${pages} pages, ${(pages / seconds).toFixed(0)} pages/s`);
  };
}

async function writeByIngestion(job: WriteSitesJob, storage: StorageLike): Promise<WrittenSite[]> {
  const { bootstrapSite } = await load<BootstrapModule>(job.root, 'tenancy/bootstrap-site.js');
  const written: WrittenSite[] = [];
  const onSite = progress(job.sites.length, performance.now());
  let pages = 0;
  for (const site of job.sites) {
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
      how: 'ingested',
    });
    onSite(written.length, pages);
  }
  return written;
}

async function main(): Promise<void> {
  const [jobFile, resultFile] = process.argv.slice(2);
  if (!jobFile || !resultFile) throw new Error('usage: scale-write-sites.ts <job.json> <result.json>');
  const job = JSON.parse(fs.readFileSync(jobFile, 'utf8')) as WriteSitesJob;
  const { openStorage } = await load<DatabaseModule>(job.root, 'storage/database.js');
  const { upsertPlan } = await load<PlansModule>(job.root, 'tenancy/plans.js');
  const unlimited = async (storage: StorageLike) =>
    upsertPlan(storage, 'free', {
      monthlyCredits: 1_000_000_000,
      orgRequestsPerHour: 1_000_000_000,
      ipRequestsPerDay: 1_000_000_000,
    });
  const lib = job.mode === 'copy' ? await copyLibrary(job.root) : null;
  const mode: WriteMode = lib !== null && typeof lib !== 'string' ? 'copy' : 'ingestion';
  const modeNote = typeof lib === 'string' ? `asked to copy, but ${lib}: every site was ingested` : null;
  if (modeNote) log(modeNote);
  const storage = await openStorage(job.databaseUrl);
  const started = performance.now();
  let written: WrittenSite[];
  let copy: CopyStats | null = null;
  try {
    await unlimited(storage);
    if (mode === 'copy') {
      const check = await openStorage(job.checkDatabaseUrl);
      try {
        await unlimited(check);
        const result = await copySites(
          {
            lib: lib as CopyLibrary,
            main: storage as Storage,
            check: check as Storage,
            corporaDir: job.corporaDir,
            workDir: job.workDir,
            sites: job.sites,
            checkSites: job.checkSites,
            seed: job.seed,
            log,
          },
          progress(job.sites.length, performance.now()),
        );
        written = result.sites.map((s) => ({ ...s, warnings: null }));
        copy = result.stats;
      } finally {
        await check.close();
      }
    } else written = await writeByIngestion(job, storage);
  } finally {
    await storage.close();
  }
  const result: WriteSitesResult = {
    sites: written,
    seconds: (performance.now() - started) / 1000,
    pages: written.reduce((n, s) => n + s.pages, 0),
    mode,
    modeNote,
    copy,
  };
  fs.writeFileSync(resultFile, JSON.stringify(result));
}

await main();
