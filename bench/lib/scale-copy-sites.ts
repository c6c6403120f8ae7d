/**
 * The many-sites writer's default way (bench/lib/scale-write-sites.ts; --write-by-ingestion runs
 * bootstrapSite per site instead): every site is a subset of one corpus's page files, so ingesting
 * each site parses the same files again and again (parsing is ~97% of a site's ingestion). Instead:
 *
 * 1. Templates. The page files of one corpus that any site uses are written into a plain folder of the
 *    same form as a site's (`site-tmpl/<file>`, one folder level, like `<domain>/<file>`) and ingested
 *    once, by bootstrapSite, into a second database (`…-check.db`); its pages and chunks rows are read
 *    into memory. A page's rows depend on its source, its id's last segment (the title fallback) and
 *    whatever its imports reach; nothing else of the folder (a plain folder has no navigation). A site's
 *    files are a subset of its template's, so a page whose import resolved nothing in the template
 *    resolves nothing in the site either. That is checked per page: its stored content hash must equal
 *    the library's `contentHash` over the page alone (path, source, no snippet files, its labels); a
 *    page whose hash covers other files is not copied, and a site holding one is ingested for real.
 * 2. Sampled sites (`checkSites`, chosen by the seed: one per corpus first) are ingested for real by
 *    bootstrapSite into the second database, each from its own folder.
 * 3. Every site: organization, site, ingestion job and assistant key through the library's functions
 *    (as bootstrapSite makes them); its pages and chunks rows are the template's rows for its files
 *    with the path rewritten to its own prefix and the content hash computed again for that path (the
 *    only columns that depend on where the page sits), inserted in one transaction that moves the
 *    site's generation as publishing an ingestion does; then the library's `storeSiteIndex` stores its
 *    index, the job is finished and the key made. The sampled sites are written first, and each is
 *    compared right away with its real ingestion (scale-site-rows.ts: every column of pages, chunks,
 *    the site's generation and repository instructions, and the stored index byte for byte; the site
 *    has the same domain in both databases, so its paths compare as they are); the first difference
 *    fails the run.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Storage } from '../../src/storage/database.ts';
import type { ChunksTable, PagesTable } from '../../src/storage/schema.ts';
import { type PlannedSite, seededRandom, shuffled } from './scale-corpus.ts';
import { firstDifference, readSiteRows } from './scale-site-rows.ts';

/** The library of the tree under test (its dist/), as the writer imports it. */
export interface CopyLibrary {
  bootstrap: typeof import('../../src/tenancy/bootstrap-site.ts');
  organizations: typeof import('../../src/tenancy/organizations.ts');
  sites: typeof import('../../src/tenancy/sites.ts');
  apiKeys: typeof import('../../src/tenancy/api-keys.ts');
  jobs: typeof import('../../src/ingest/jobs.ts');
  contentHash: typeof import('../../src/ingest/content-hash.ts');
  staging: typeof import('../../src/ingest/page-staging.ts');
  docsFiles: typeof import('../../src/ingest/docs-files.ts');
  siteIndex: typeof import('../../src/search/build-site-index.ts');
  ids: typeof import('../../src/storage/ids.ts');
}

/** The library's modules the copy writer needs, by their path under dist/. */
export const COPY_MODULES: Record<keyof CopyLibrary, string> = {
  bootstrap: 'tenancy/bootstrap-site.js',
  organizations: 'tenancy/organizations.js',
  sites: 'tenancy/sites.js',
  apiKeys: 'tenancy/api-keys.js',
  jobs: 'ingest/jobs.js',
  contentHash: 'ingest/content-hash.js',
  staging: 'ingest/page-staging.js',
  docsFiles: 'ingest/docs-files.js',
  siteIndex: 'search/build-site-index.js',
  ids: 'storage/ids.js',
};

/** The template folder's one level, as long as a site's `site-NNNN` (no limit can treat them apart). */
const TEMPLATE_PREFIX = 'site-tmpl';
/** Rows per INSERT: 10 columns × 500 stays below SQLite's bound-parameter limit. */
const INSERT_BATCH = 500;

type PageRow = Omit<PagesTable, 'site_id' | 'path' | 'updated_at'>;
type ChunkRow = Omit<ChunksTable, 'site_id' | 'page_path'>;

interface TemplatePage {
  id: string;
  source: string;
  page: PageRow;
  chunks: ChunkRow[];
}

interface Template {
  corpus: string;
  files: number;
  /** Per page file: its rows; null when the ingestion stored no page for it (skipped or a fragment). */
  byFile: Map<string, TemplatePage | null>;
  /** Files whose stored rows cover other files (their content hash does): never copied. */
  notCopyable: Set<string>;
  pages: number;
  chunks: number;
  seconds: number;
}

export interface CopyStats {
  templates: {
    corpus: string;
    files: number;
    pages: number;
    chunks: number;
    notCopyable: number;
    seconds: number;
  }[];
  /** The sampled sites ingested for real and compared with their copies, and what was compared. */
  check: {
    sites: string[];
    pages: number;
    chunks: number;
    indexBytes: number;
    seconds: number;
    matched: boolean;
  };
  /** Sites ingested for real because one of their pages could not be copied. */
  ingestedSites: string[];
  seconds: { templates: number; check: number; setup: number; rows: number; index: number };
}

export interface CopiedSite {
  domain: string;
  assistantKey: string;
  pages: number;
  how: 'copied' | 'ingested';
}

export interface CopyInput {
  lib: CopyLibrary;
  main: Storage;
  check: Storage;
  corporaDir: string;
  workDir: string;
  sites: PlannedSite[];
  checkSites: number;
  seed: number;
  log: (line: string) => void;
}

const seconds = (since: number): number => (performance.now() - since) / 1000;

/** Writes a site's page files under `<dir>/<prefix>/`: the form every site and template has. */
function writeFolder(
  corporaDir: string,
  corpus: string,
  files: readonly string[],
  dir: string,
  prefix: string,
): void {
  for (const file of files) {
    const to = path.join(dir, prefix, file);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(path.join(corporaDir, corpus, file), to);
  }
}

/** The sites compared with a real ingestion: one per corpus (in plan order), then any, by the seed. */
export function sampleSites(sites: readonly PlannedSite[], count: number, seed: number): string[] {
  const order = shuffled(sites, seededRandom(seed + 11));
  const chosen: string[] = [];
  const corpora = new Set<string>();
  for (const site of order) {
    if (chosen.length >= count) break;
    if (corpora.has(site.corpus)) continue;
    corpora.add(site.corpus);
    chosen.push(site.domain);
  }
  for (const site of order) {
    if (chosen.length >= count) break;
    if (!chosen.includes(site.domain)) chosen.push(site.domain);
  }
  return chosen;
}

async function ingestTemplate(input: CopyInput, corpus: string, files: string[]): Promise<Template> {
  const { lib, check, corporaDir } = input;
  const started = performance.now();
  const dir = path.join(input.workDir, `template-${corpus}`);
  writeFolder(corporaDir, corpus, files, dir, TEMPLATE_PREFIX);
  let siteId: string;
  try {
    const result = await lib.bootstrap.bootstrapSite(check, { domain: `template-${corpus}`, docsDir: dir });
    siteId = result.site.id;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const pages = await check.db.selectFrom('pages').selectAll().where('site_id', '=', siteId).execute();
  const chunks = await check.db
    .selectFrom('chunks')
    .selectAll()
    .where('site_id', '=', siteId)
    .orderBy('page_path')
    .orderBy('ord')
    .execute();
  const chunksByPath = new Map<string, ChunkRow[]>();
  for (const { site_id: _site, page_path, ...chunk } of chunks) {
    const list = chunksByPath.get(page_path) ?? [];
    list.push(chunk);
    chunksByPath.set(page_path, list);
  }
  const fileById = new Map<string, string>();
  for (const file of files) {
    const id = lib.docsFiles.pageIdOf(file);
    const other = fileById.get(id);
    // Two files of one page id: which one a site gets depends on which it has; not worth copying.
    if (other !== undefined) throw new Error(`${corpus}: ${other} and ${file} are one page id`);
    fileById.set(id, file);
  }
  const byFile = new Map<string, TemplatePage | null>(files.map((file) => [file, null]));
  const notCopyable = new Set<string>();
  for (const { site_id: _site, path: stored, updated_at: _at, ...page } of pages) {
    const id = stored.slice(TEMPLATE_PREFIX.length + 1);
    const file = fileById.get(id);
    if (!stored.startsWith(`${TEMPLATE_PREFIX}/`) || file === undefined)
      throw new Error(`${corpus}: stored page ${stored} is none of the template's files`);
    const source = fs.readFileSync(path.join(corporaDir, corpus, file), 'utf8');
    const alone = storedHash(lib, stored, source, page);
    if (alone !== page.content_hash) notCopyable.add(file);
    byFile.set(file, { id, source, page, chunks: chunksByPath.get(stored) ?? [] });
  }
  return {
    corpus,
    files: files.length,
    byFile,
    notCopyable,
    pages: pages.length,
    chunks: chunks.length,
    seconds: seconds(started),
  };
}

/** The content hash an ingestion stores for a page that reaches no other file, at `pagePath`. */
function storedHash(lib: CopyLibrary, pagePath: string, source: string, page: PageRow): string {
  return `${lib.staging.STORED_HASH_PREFIX}${lib.contentHash.contentHash({
    path: pagePath,
    source,
    snippets: [],
    versions: JSON.parse(page.versions) as string[],
    languages: JSON.parse(page.languages) as string[],
    // The copies are plain folders: no framework block syntax.
    syntax: '',
  })}`;
}

interface Timings {
  setup: number;
  rows: number;
  index: number;
}

/** One site, written by copying its template's rows (step 3 of the header). */
async function copySite(
  input: CopyInput,
  site: PlannedSite,
  template: Template,
  timings: Timings,
): Promise<CopiedSite> {
  const { lib, main } = input;
  let at = performance.now();
  const docsDir = path.join(input.workDir, site.domain);
  const organization = await lib.organizations.createOrganization(main, { name: site.domain });
  const created = await lib.sites.createSite(main, {
    organizationId: organization.id,
    domain: site.domain,
    name: site.domain,
    docsDir,
    baseUrl: lib.sites.parseBaseUrl(undefined),
  });
  const job = await lib.jobs.createIngestionJob(main, created.id, docsDir, null);
  await lib.jobs.markIngestionStarted(main, job.id);
  timings.setup += seconds(at);

  at = performance.now();
  const updatedAt = lib.ids.nowIso();
  const pages: PagesTable[] = [];
  const chunks: ChunksTable[] = [];
  let skipped = 0;
  for (const file of site.files) {
    const copy = template.byFile.get(file);
    if (copy === undefined)
      throw new Error(`${site.domain}: ${file} is not in the ${template.corpus} template`);
    if (copy === null) {
      if (lib.docsFiles.isPlainFolderPage(file) !== 'fragment') skipped++;
      continue;
    }
    const pagePath = `${site.domain}/${copy.id}`;
    pages.push({
      ...copy.page,
      site_id: created.id,
      path: pagePath,
      content_hash: storedHash(lib, pagePath, copy.source, copy.page),
      updated_at: updatedAt,
    });
    for (const chunk of copy.chunks) chunks.push({ ...chunk, site_id: created.id, page_path: pagePath });
  }
  // One transaction with the generation bump, as publishing an ingestion (page-staging.ts) commits it.
  await main.db.transaction().execute(async (trx) => {
    for (let i = 0; i < pages.length; i += INSERT_BATCH)
      await trx
        .insertInto('pages')
        .values(pages.slice(i, i + INSERT_BATCH))
        .execute();
    for (let i = 0; i < chunks.length; i += INSERT_BATCH)
      await trx
        .insertInto('chunks')
        .values(chunks.slice(i, i + INSERT_BATCH))
        .execute();
    await trx
      .updateTable('sites')
      .set((eb) => ({ index_generation: eb('index_generation', '+', 1) }))
      .where('id', '=', created.id)
      .execute();
  });
  // The ingestion sets it after publishing; the folder has no Assistant.md, so it is null.
  await main.db
    .updateTable('sites')
    .set({ repository_instructions: null })
    .where('id', '=', created.id)
    .execute();
  timings.rows += seconds(at);

  at = performance.now();
  const built = await lib.siteIndex.storeSiteIndex(main, created.id);
  if (built === null) throw new Error(`${site.domain}: storeSiteIndex found no site`);
  // Older libraries return the built index; this one says whether it was stored.
  if (built.published === false)
    throw new Error(`${site.domain}: storeSiteIndex stored nothing (the site moved on meanwhile)`);
  timings.index += seconds(at);

  at = performance.now();
  await lib.jobs.finishIngestionJob(main, job.id, {
    status: 'success',
    counts: {
      pages: pages.length,
      added: pages.length,
      updated: 0,
      removed: 0,
      unchanged: 0,
      skipped,
      chunksWritten: chunks.length,
      warnings: 1,
    },
    // Honest about what made the rows: no parse ran, so no page warnings are known.
    warnings: [
      {
        file: '(bench)',
        message:
          'pages and chunks copied from a template ingestion of the same files by bench/lib/scale-copy-sites.ts; page warnings not recorded',
      },
    ],
  });
  const { key } = await lib.apiKeys.createApiKey(main, {
    organizationId: organization.id,
    siteId: created.id,
    kind: 'assistant',
    name: 'default',
  });
  timings.setup += seconds(at);
  return { domain: site.domain, assistantKey: key, pages: pages.length, how: 'copied' };
}

/** Writes one site's folder and ingests it for real, into `storage`; the folder is removed again. */
async function ingestSite(
  input: CopyInput,
  storage: Storage,
  site: PlannedSite,
): Promise<{ assistantKey: string; pages: number }> {
  const dir = path.join(input.workDir, site.domain);
  writeFolder(input.corporaDir, site.corpus, site.files, dir, site.domain);
  try {
    const result = await input.lib.bootstrap.bootstrapSite(storage, { domain: site.domain, docsDir: dir });
    return { assistantKey: result.assistantKey, pages: result.ingestion.counts.pages };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function copySites(
  input: CopyInput,
  onSite: (done: number, pages: number) => void,
): Promise<{ sites: CopiedSite[]; stats: CopyStats }> {
  const { log, sites } = input;
  const stats: CopyStats = {
    templates: [],
    check: { sites: [], pages: 0, chunks: 0, indexBytes: 0, seconds: 0, matched: false },
    ingestedSites: [],
    seconds: { templates: 0, check: 0, setup: 0, rows: 0, index: 0 },
  };

  let started = performance.now();
  const filesByCorpus = new Map<string, Set<string>>();
  for (const site of sites) {
    const set = filesByCorpus.get(site.corpus) ?? new Set<string>();
    for (const file of site.files) set.add(file);
    filesByCorpus.set(site.corpus, set);
  }
  const templates = new Map<string, Template>();
  for (const [corpus, files] of filesByCorpus) {
    log(`template ${corpus}: ingesting its ${files.size} page files once`);
    const template = await ingestTemplate(input, corpus, [...files].sort());
    templates.set(corpus, template);
    stats.templates.push({
      corpus,
      files: template.files,
      pages: template.pages,
      chunks: template.chunks,
      notCopyable: template.notCopyable.size,
      seconds: template.seconds,
    });
    log(
      `template ${corpus}: ${template.pages} pages, ${template.chunks} chunks in ${template.seconds.toFixed(1)} s; ` +
        `${template.notCopyable.size} pages reach other files (not copied)`,
    );
  }
  stats.seconds.templates = seconds(started);

  started = performance.now();
  const sampled = sampleSites(sites, input.checkSites, input.seed);
  const byDomain = new Map(sites.map((s) => [s.domain, s]));
  for (const domain of sampled) {
    const site = byDomain.get(domain) as PlannedSite;
    log(
      `check: ingesting ${domain} (${site.corpus}, ${site.files.length} files) for real into the second database`,
    );
    await ingestSite(input, input.check, site);
  }
  stats.check.sites = sampled;
  stats.seconds.check = seconds(started);

  const timings: Timings = { setup: 0, rows: 0, index: 0 };
  const written = new Map<string, CopiedSite>();
  let pages = 0;
  // The sampled sites first: a copy that differs from its ingestion fails the run before the others.
  const order = [
    ...sampled.map((d) => byDomain.get(d) as PlannedSite),
    ...sites.filter((s) => !sampled.includes(s.domain)),
  ];
  for (const site of order) {
    const template = templates.get(site.corpus) as Template;
    let done: CopiedSite;
    const blocker = site.files.find((f) => template.notCopyable.has(f));
    if (blocker !== undefined) {
      log(`${site.domain}: ${blocker} reaches other files; ingesting this site for real`);
      const at = performance.now();
      const result = await ingestSite(input, input.main, site);
      timings.setup += seconds(at);
      stats.ingestedSites.push(site.domain);
      done = { domain: site.domain, ...result, how: 'ingested' };
    } else done = await copySite(input, site, template, timings);
    written.set(site.domain, done);
    pages += done.pages;
    if (sampled.includes(site.domain)) {
      const at = performance.now();
      const copied = await readSiteRows(input.main, site.domain);
      const ingested = await readSiteRows(input.check, site.domain);
      const difference = firstDifference(copied, ingested);
      if (difference !== null)
        throw new Error(
          `the copied site differs from its real ingestion (${difference}); nothing is measured`,
        );
      stats.check.pages += ingested.pages.length;
      stats.check.chunks += ingested.chunks.length;
      stats.check.indexBytes += ingested.index.reduce((n, part) => n + part.data.length, 0);
      stats.seconds.check += seconds(at);
      log(
        `check: ${site.domain} copied = ingested (${ingested.pages.length} pages, ${ingested.chunks.length} chunks, index ${ingested.index.length} parts)`,
      );
    }
    onSite(written.size, pages);
  }
  stats.check.matched = true;
  stats.seconds.setup = timings.setup;
  stats.seconds.rows = timings.rows;
  stats.seconds.index = timings.index;
  return { sites: sites.map((s) => written.get(s.domain) as CopiedSite), stats };
}
