import { stat } from 'node:fs/promises';
import path from 'node:path';
import { readAssistantInstructions } from './assistant-instructions.ts';
import { containedFolder, MAX_CONFIG_FILE_BYTES } from './contained-file.ts';
import { isPlainFolderPage, listDocsFiles, pageIdOf } from './docs-files.ts';
import { outcomeToShare, ParseSharing, type ShareInfo, sharedResult } from './duplicate-pages.ts';
import { readFrameworkNavigation } from './frameworks/read-framework-navigation.ts';
import {
  createPageTriage,
  type PageCandidate,
  type PageLoaderOptions,
  type PageResult,
} from './load-page.ts';
import { readNavigation } from './navigation.ts';
import { MAX_MAIN_THREAD_SPEC_BYTES } from './openapi/openapi-spec.ts';
import { operationCandidates, operationsShownByPages } from './openapi/operation-candidates.ts';
import { createSpecCache } from './openapi/spec-cache.ts';
import { forEachInOrder } from './ordered-window.ts';
import {
  createPageLoaderPool,
  type PageLoaderPoolOptions,
  PageWorkersUnavailableError,
  workerCountFor,
} from './page-loader-pool.ts';
import { folderDigest } from './source-stamps.ts';
import type { LoadedSite, LoadProgress, NavigationSummary, PageStamp, ParsedPage } from './types.ts';
import { WarningSink } from './warnings.ts';

/**
 * Pages read, parsed or finished and waiting to be handed on, at most: enough to keep every parsing lane
 * fed (the pool posts a few pages ahead to each worker) and to hide file-system latency while one slow
 * page holds back the ones after it, few enough that what waits stays a few megabytes.
 */
export const PAGES_IN_FLIGHT = 64;
/**
 * Page warnings remembered for deduplication (a broken snippet is reported once, not per page). The
 * kept warnings are capped anyway (WarningSink); past this many distinct ones a repeat is counted again
 * in the "more page warnings" total rather than remembered.
 */
const MAX_DEDUPLICATED_WARNINGS = 10_000;

export interface LoadDocsFolderOptions {
  onProgress?: LoadProgress;
  /** Content hashes already stored, by page id: pages known unchanged (createPageTriage) are not parsed. */
  known?: Readonly<Record<string, string>>;
  /**
   * Source stamps of stored pages (source-stamps.ts), by page id, each vouching for the page's hash in
   * `known`: such a page whose files' stamps are unchanged is reused without being read.
   */
  stamps?: ReadonlyMap<string, PageStamp>;
  /** Run the search analyzer on every chunk while loading (`ParsedChunk.analyzedJson`). */
  analyze?: boolean;
  /** Per-page time and memory limits of the parsing workers (tests shrink them). */
  limits?: Omit<PageLoaderPoolOptions, 'workers'>;
  /** Identical pages share one parse (duplicate-pages.ts); false parses every page (benchmarks compare). */
  shareParses?: boolean;
}

/** What streamDocsFolder returns once every page has been handed on. */
export interface StreamedSite extends Omit<LoadedSite, 'pages'> {
  /** Pages handed on. */
  pages: number;
  /** Of those, pages that took an identical page's parse instead of being parsed (duplicate-pages.ts). */
  sharedParses: number;
  /** Of those, pages known unchanged by their source stamps, without being read (source-stamps.ts). */
  pagesByStamp: number;
}

/** Most top-level folders looked into for a `docs.json` of their own when the root has none. */
const MAX_NESTED_CONFIG_PROBES = 20;

/**
 * A folder with no `docs.json` or `mint.json` whose subfolder has one was most likely given one level too
 * high (a repository's root, its docs in `docs/`): every Markdown file became a page, each id starting with
 * the subfolder, the navigation unread, and nothing said so. Names the config found and what to ingest.
 */
const warnNestedDocsConfig = async (
  root: string,
  files: readonly string[],
  sink: WarningSink,
): Promise<void> => {
  const folder = containedFolder(root);
  const configs = ['docs.json', 'mint.json'];
  for (const name of configs) if ((await folder.stampOf(name)) !== null) return;
  const tops = new Set<string>();
  for (const file of files) {
    const slash = file.indexOf('/');
    const top = slash > 0 ? file.slice(0, slash) : '';
    if (top !== '' && !/\p{Cc}/u.test(top)) tops.add(top);
    if (tops.size >= MAX_NESTED_CONFIG_PROBES) break;
  }
  for (const top of tops)
    for (const name of configs) {
      const rel = `${top}/${name}`;
      const read = await folder.readText(rel, MAX_CONFIG_FILE_BYTES);
      // A docs config, not any data file of that name: it has a navigation (or a mint.json's).
      if (!read.ok || !hasNavigation(read.text)) continue;
      sink.add({
        file: rel,
        message: `the docs folder has no ${name} of its own, so every Markdown file is a page and the navigation of ${rel} is not read; to use it, ingest the ${top} folder instead (a git source: subdir ${top})`,
      });
      return;
    }
};

/** Whether a config's text is a JSON object with a `navigation` (docs.json, mint.json) key. */
const hasNavigation = (text: string): boolean => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && 'navigation' in value;
  } catch {
    return false;
  }
};

/**
 * Loads a documentation folder page by page: each page is handed to `onPage` in the order the site
 * lists them, and the next only once `onPage` has settled, so the caller decides how many pages are
 * held at once (the ingestion writes them in batches; nothing here keeps a page it has handed on).
 * Pure: reads files, never writes. A folder with `docs.json` (or `mint.json`), or with a Docusaurus,
 * MkDocs, Starlight or VitePress config, is indexed as its navigation says; without one, every Markdown
 * file is a page. Bad files become warnings, never exceptions; only a missing root, a `docs.json` or
 * `mint.json` that is there but unusable (DocsConfigError), page workers that cannot run at all
 * (PageWorkersUnavailableError) and `onPage` throw, because an empty or navigation-less result would
 * make the caller delete or publish stored pages.
 */
export const streamDocsFolder = async (
  dir: string,
  options: LoadDocsFolderOptions,
  onPage: (page: ParsedPage) => Promise<void> | void,
): Promise<StreamedSite> => {
  const root = path.resolve(dir);
  const rootStat = await stat(root).catch(() => null);
  if (!rootStat?.isDirectory()) throw new Error(`docs folder not found: ${dir}`);

  const sink = new WarningSink();
  const docs = await listDocsFiles(root);
  for (const rel of docs.unreadable) {
    const reason = docs.refused.get(rel);
    sink.add({ file: rel, message: reason ?? 'cannot read directory; skipped' }, 'io');
  }

  // Mintlify's config first; without one, another framework's (Docusaurus, MkDocs, Starlight, VitePress).
  const navigation =
    (await readNavigation(root, sink)) ?? (await readFrameworkNavigation(root, sink, docs.files));
  if (!navigation) await warnNestedDocsConfig(root, docs.files, sink);
  const summary: NavigationSummary = navigation?.summary ?? {
    kind: 'none',
    versions: [],
    languages: [],
    name: null,
  };
  const indexHidden = navigation?.indexHidden ?? false;
  let skipped = 0;

  const candidates: PageCandidate[] = [];
  if (navigation) {
    const listed = new Set(docs.files);
    for (const nav of navigation.pages) {
      const file =
        nav.file !== undefined ? (listed.has(nav.file) ? nav.file : undefined) : docs.byPageId.get(nav.id);
      if (!file) {
        sink.add(
          () => {
            const line = navigation.lineOf(nav.configFile, nav.raw);
            const message = `navigation lists page "${nav.id}" but no ${nav.id}.mdx or ${nav.id}.md exists`;
            return line === undefined
              ? { file: nav.configFile, message }
              : { file: nav.configFile, line, message };
          },
          'missing',
          'more missing pages',
        );
        continue;
      }
      if (nav.hidden && !indexHidden) {
        skipped++;
        continue;
      }
      candidates.push({
        id: nav.id,
        file,
        versions: nav.versions,
        languages: nav.languages,
        navOrder: nav.order,
        navGroup: nav.group,
        ...(nav.openapiSpec === undefined ? {} : { openapiSpec: nav.openapiSpec }),
      });
    }
  } else {
    for (const file of docs.files) {
      const role = isPlainFolderPage(file);
      if (role === 'housekeeping') skipped++;
      if (role !== 'page') continue;
      // `guide.md` beside `guide.mdx` is one page id; listDocsFiles already picked the .mdx.
      const chosen = docs.byPageId.get(pageIdOf(file));
      if (chosen !== file) {
        sink.add(
          { file, message: `not indexed: ${chosen} beside it makes the same page "${pageIdOf(file)}"` },
          'shadowed',
          'more files not indexed beside a page of the same name',
        );
        continue;
      }
      candidates.push({
        id: pageIdOf(file),
        file,
        versions: [],
        languages: [],
        navOrder: null,
        navGroup: null,
      });
    }
  }

  const openapi = navigation?.openapi;
  const loaderOptions: PageLoaderOptions = {
    root,
    files: docs.files,
    indexHidden,
    analyze: options.analyze ?? false,
    ...(openapi ? { openapiSpecs: openapi.specs } : {}),
    ...(summary.kind === 'docusaurus' ||
    summary.kind === 'starlight' ||
    summary.kind === 'mkdocs' ||
    summary.kind === 'vitepress'
      ? { syntax: summary.kind }
      : {}),
    ...(navigation?.sourceRoot !== undefined ? { includeRoot: navigation.sourceRoot } : {}),
    ...(navigation?.anchors
      ? { anchors: navigation.anchors }
      : summary.kind === 'docusaurus' || summary.kind === 'mkdocs' || summary.kind === 'vitepress'
        ? { anchors: summary.kind }
        : {}),
  };
  // Workers start on demand: pages reused on the main thread and small specs listed here start none.
  const pool = createPageLoaderPool(loaderOptions, {
    ...options.limits,
    workers: workerCountFor(candidates.length + (openapi?.operations.length ?? 0)),
  });
  const smallSpecs = createSpecCache(containedFolder(root), MAX_MAIN_THREAD_SPEC_BYTES);
  if (navigation && openapi && (openapi.operations.length > 0 || openapi.sections.length > 0)) {
    const generated = await operationCandidates(
      openapi,
      async (file) => {
        const listing = await smallSpecs.list(file);
        return !listing.ok && listing.tooLarge ? pool.listOperations(file) : listing;
      },
      new Set(candidates.map((c) => c.id)),
      indexHidden,
      navigation.lineOf,
      openapi.sections.length > 0
        ? await operationsShownByPages(containedFolder(root), candidates)
        : new Set(),
    ).catch(async (error: unknown) => {
      await pool.close();
      throw error;
    });
    for (const warning of generated.warnings) sink.add(warning, 'openapi', 'more OpenAPI problems');
    skipped += generated.skipped;
    candidates.push(...generated.candidates);
    // A section's operations sit between two navigation places (fractional orders): number them all again.
    const placed = candidates.filter((c) => c.navOrder !== null);
    placed.sort((a, b) => (a.navOrder as number) - (b.navOrder as number));
    for (const [order, candidate] of placed.entries()) candidate.navOrder = order;
  }
  let done = 0;
  options.onProgress?.(0, candidates.length);
  const sharing = options.shareParses === false ? null : new ParseSharing();
  // Decided here, not in the workers: a page known unchanged never reaches one, and a page identical to
  // one already parsed takes its parse (duplicate-pages.ts).
  const triage =
    options.known || sharing
      ? createPageTriage(
          loaderOptions,
          options.known
            ? {
                hashes: options.known,
                stamps: options.stamps ?? new Map(),
                folder: folderDigest(docs.files),
              }
            : null,
          smallSpecs,
          sharing !== null,
        )
      : null;
  // Share keys are claimed in page order, whatever order the triages finish in: the first page with a
  // key is then the one parsed, and it is handed on before every page that takes its parse.
  let lastClaim: Promise<void> = Promise.resolve();
  let pagesByStamp = 0;
  const parse = async (
    candidate: PageCandidate,
    index: number,
    turn: { after: Promise<void>; release: () => void },
  ): Promise<PageResult> => {
    let seen: Awaited<ReturnType<NonNullable<typeof triage>>> | null;
    try {
      seen = triage === null ? null : await triage(candidate);
      await turn.after;
    } finally {
      turn.release();
    }
    if (seen?.reused && 'byStamp' in seen) pagesByStamp++;
    const result = seen?.reused ?? (await parsed(candidate, index, seen?.share ?? null));
    // The triage's stamp, on the page it was taken for (ingest-site.ts stores it with the page's hash).
    const stamped = seen?.stamped;
    return stamped === undefined || result.page === null
      ? result
      : { ...result, page: { ...result.page, stamped } };
  };
  /** A page the triage did not reuse: parsed, or given an identical page's parse (`share`). */
  const parsed = async (
    candidate: PageCandidate,
    index: number,
    share: ShareInfo | null,
  ): Promise<PageResult> => {
    if (sharing === null || share === null) return pool.load(candidate);
    const claim = sharing.claim(share.key, index);
    if (claim.wait !== null) {
      const outcome = await claim.wait;
      if (outcome === null) return pool.load(candidate);
      sharing.shared++;
      return sharedResult(candidate, outcome, share);
    }
    let result: PageResult;
    try {
      result = await pool.load(candidate);
    } catch (error) {
      claim.settle?.(null);
      throw error;
    }
    claim.settle?.(outcomeToShare(result, share, candidate.id));
    return result;
  };
  const load = async (candidate: PageCandidate, index: number): Promise<PageResult> => {
    // Called in page order (forEachInOrder starts the pages in order): each waits for the one before.
    const after = lastClaim;
    let release = (): void => {};
    lastClaim = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      return await parse(candidate, index, { after, release });
    } catch (error) {
      // Without workers nothing can be parsed: failing keeps the stored pages, an empty result would not.
      if (error instanceof PageWorkersUnavailableError) throw error;
      // A parser bug on one odd file must not lose the other thousand pages.
      return {
        page: null,
        skipped: false,
        warnings: [{ file: candidate.file, message: `failed to load page: ${(error as Error).message}` }],
        snippetFiles: [],
      };
    } finally {
      done++;
      options.onProgress?.(done, candidates.length);
    }
  };

  let pages = 0;
  const seenWarnings = new Set<string>();
  const fragments = new Set<string>();
  // Handed on in page order, one at a time, each after `onPage` has taken the one before: at most
  // PAGES_IN_FLIGHT pages are being read, parsed or waiting here, and the pool's queue holds no more.
  await forEachInOrder(candidates, PAGES_IN_FLIGHT, load, async (result) => {
    // Merged in page order and deduplicated (a broken snippet is reported once, not per importing page).
    for (const warning of result.warnings) {
      const key = `${warning.file}\0${warning.line ?? ''}\0${warning.message}`;
      if (seenWarnings.has(key)) continue;
      if (seenWarnings.size < MAX_DEDUPLICATED_WARNINGS) seenWarnings.add(key);
      sink.add(warning, 'page', 'more page warnings');
    }
    for (const file of result.snippetFiles) fragments.add(file);
    if (result.skipped) skipped++;
    if (result.page) {
      pages++;
      // A page reused with its warnings (an `openapi:` page whose operation is missing) has them from
      // the triage each time; a parsed one is marked so that the next ingestion parses it again.
      const warned = result.warnings.length > 0 && result.page.reused !== true;
      await onPage(warned ? { ...result.page, warned: true } : result.page);
    }
  }).finally(() => pool.close());

  if (navigation) {
    // Mintlify does not publish files the navigation does not reach; they are counted, not indexed. (The
    // other frameworks' navigations list every page they publish, so what is left is unpublished too.)
    const reachable = new Set<string>();
    for (const nav of navigation.pages) {
      const file = nav.file ?? docs.byPageId.get(nav.id);
      if (file) reachable.add(file);
    }
    for (const file of docs.files) {
      if (reachable.has(file) || fragments.has(file) || isPlainFolderPage(file) !== 'page') continue;
      skipped++;
    }
  }

  const assistantInstructions = await readAssistantInstructions(root, sink);
  return {
    navigation: summary,
    pages,
    sharedParses: sharing?.shared ?? 0,
    pagesByStamp,
    warnings: sink.list(summary.kind === 'none' ? '.' : summary.kind),
    skipped,
    assistantInstructions,
  };
};

/**
 * Loads a documentation folder into pages and chunks, all of them at once (streamDocsFolder hands
 * them on one by one instead). Pure: reads files, never writes. A page that took another's parse
 * (`sameAs`) gets that page's title, description and chunks here, so every page is complete.
 */
export const loadDocsFolder = async (
  dir: string,
  options: LoadDocsFolderOptions = {},
): Promise<LoadedSite> => {
  const pages: ParsedPage[] = [];
  const byId = new Map<string, ParsedPage>();
  const {
    pages: _count,
    sharedParses: _shared,
    pagesByStamp: _byStamp,
    ...site
  } = await streamDocsFolder(dir, options, (page) => {
    let complete = page;
    if (page.sameAs !== undefined) {
      const { sameAs, ...own } = page;
      const first = byId.get(sameAs);
      if (first === undefined) throw new Error(`page ${page.path} shares the parse of ${sameAs}, not loaded`);
      complete = { ...own, title: first.title, description: first.description, chunks: first.chunks };
    }
    pages.push(complete);
    byId.set(complete.path, complete);
  });
  return { ...site, pages };
};
