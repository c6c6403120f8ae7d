import { DomainError } from '../errors/domain-error.ts';
import type { Storage } from '../storage/database.ts';
import { type BuiltIndex, buildSiteIndex } from './build-site-index.ts';
import { type ChunkRow, readChunkRows } from './chunk-rows.ts';
import { resolvePage } from './current-path.ts';
import type { EmbeddingModel } from './embeddings/embedding-model.ts';
import {
  buildSiteVectors,
  FUSION_CANDIDATES,
  nearestChunks,
  reciprocalRankFusion,
  type SiteVectors,
  type StoredVector,
} from './embeddings/semantic-rank.ts';
import { normalized } from './embeddings/vectors.ts';
import { IndexCache, type IndexCacheStats } from './index-cache.ts';
import { decodeIndex, decodeIndexPieces } from './index-codec.ts';
import {
  chunkPassesFilter,
  indexBytes,
  listLabels,
  questionLanguageLabel,
  type SearchIndex,
  type SiteLabels,
  searchIndex,
  siteLabels,
  siteLanguageLabel,
  siteVersionLabel,
} from './search-index.ts';
import { readStoredIndex, writeStoredIndex } from './stored-index.ts';
import type { SearchHit, SearchOptions } from './types.ts';
import { mentionedVersions, withoutVersionMentions } from './version-mentions.ts';
import { yieldToIo } from './yield-to-io.ts';

/** Longest wait for a query's vector before the search goes on with words alone. */
export const QUERY_EMBEDDING_TIMEOUT_MS = 2_000;

/** A search that held the main thread longer yields to the event loop before reading its hits. */
const LONG_SEARCH_MS = 10;

/** One search result as the CLI, the eval and the assistant see it. */
export interface SearchResult {
  pagePath: string;
  /** Deep link: the site's base URL (or root-relative) + page path + `#anchor`. */
  url: string;
  /** The page title. */
  title: string;
  /** Page title, then the headings leading to the chunk. */
  breadcrumbs: string[];
  anchor: string | null;
  text: string;
  score: number;
  /** See `SearchHit.coverage`: how much of the query this chunk speaks to, 0–1. */
  coverage: number;
  versions: string[];
  languages: string[];
  /**
   * The version the search ran in: the filter given, or the one the question named (null: every
   * version). A question's name of it was not searched for (version-mentions.ts).
   */
  searchedVersion: string | null;
}

interface LoadedIndex {
  generation: number;
  index: SearchIndex;
  baseUrl: string | null;
  /** The chunks' vectors under the configured embeddings model; null: none (or no model). */
  vectors: SiteVectors | null;
  /** The site's name and its landing pages (SearchOptions.landing): read with the index. */
  landing: { siteName: string; pages: string[] };
}

/** What the search logs with. */
interface SearchLogger {
  info?(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface SiteSearchOptions {
  /**
   * The byte budget of loaded indexes (`DOCENT_INDEX_CACHE_MB`): past it the least recently searched
   * site's index is dropped, and loaded again (from its stored form) when next searched. Absent: no
   * budget (benchmarks, eval and tests that search a few sites).
   */
  cacheBytes?: number;
  /** Used for links when the site has no base URL of its own. */
  publicUrl?: string | null;
  /**
   * Semantic retrieval (`DOCENT_EMBEDDINGS`): a site with vectors of this model is searched by words
   * and by meaning, the two rankings fused. Absent or null: words only, as without it.
   */
  embeddings?: EmbeddingModel | null;
  /** Longest wait for a query's vector (default `QUERY_EMBEDDING_TIMEOUT_MS`). */
  queryEmbeddingTimeoutMs?: number;
  /** Index loads and evictions are logged at info; unusable stored indexes and failing queries warn. */
  logger?: SearchLogger;
  /**
   * Longest wait for the index an ingestion of the site still running is storing, before building it
   * here (default `STORED_INDEX_WAIT_MS`); 0 builds at once.
   */
  storedIndexWaitMs?: number;
  /** How often that wait looks for the stored index (default `STORED_INDEX_POLL_MS`). */
  storedIndexPollMs?: number;
}

/**
 * An ingestion publishes its pages (the generation moves) and then builds and stores the new index: a
 * search in between finds no stored index for the generation. While an ingestion of the site is still
 * queued or running, it waits this long at most for that index rather than build it too: otherwise every
 * replica searching the site builds the same index at once (seconds of CPU each for a site of a thousand
 * pages, the ingesting server's own build slowed by them) and writes it again.
 */
export const STORED_INDEX_WAIT_MS = 30_000;
export const STORED_INDEX_POLL_MS = 250;

/** The site row as the caller just read it: its index generation, base URL and name. */
export interface KnownSite {
  index_generation: number;
  base_url: string | null;
  name: string;
}

/**
 * Per-process search over stored sites. The database is the source of truth: each site's index is
 * stored serialized beside its chunks for the site's index generation (which every ingestion bumps in
 * the same transaction as its writes, and again when it writes chunk vectors, which are loaded with
 * the index). A node loads the stored index, or builds it in a worker thread and stores it when there
 * is none. Loaded indexes stay in a byte-budgeted cache until the generation moves; checking the
 * generation costs one indexed read per search and keeps several processes sharing a database
 * correct. Chunk texts are not held: a search reads its hits' texts from storage.
 */
export class SiteSearch {
  private readonly cache: IndexCache<LoadedIndex>;
  private readonly loading = new Map<string, Promise<LoadedIndex>>();
  /** One index build at a time: a build holds about twice its index in memory. */
  private builds: Promise<unknown> = Promise.resolve();
  /** Whether the last query embedding failed: the failure is logged once, not per search. */
  private queryFailing = false;
  /** Stored vectors whose dimensions a query vector did not have: logged once per loaded index. */
  private readonly mismatchLogged = new WeakSet<SiteVectors>();

  constructor(
    private readonly storage: Storage,
    private readonly options: SiteSearchOptions = {},
  ) {
    this.cache = new IndexCache(options.cacheBytes ?? Number.POSITIVE_INFINITY, (siteId, bytes) =>
      options.logger?.info?.({ siteId, bytes, cache: this.cache.stats() }, 'search index evicted'),
    );
  }

  /** The index cache's size and counts (logged with each load, and served as metrics). */
  cacheStats(): IndexCacheStats {
    return this.cache.stats();
  }

  /**
   * `known` is the site row as the caller just read it (the assistant route has it from its cached
   * tenancy reads): an index at least that new is used without reading the generation again, and
   * links use its base URL, and questions about the whole site its name (both change without an
   * ingestion). A newer generation than the cached index loads the site again.
   */
  async search(
    siteId: string,
    query: string,
    options: SearchOptions,
    known?: KnownSite,
  ): Promise<SearchResult[]> {
    const loaded = await this.loadedFor(siteId, known, true);
    const { index } = loaded;
    const given = options.language?.trim() ? options.language : undefined;
    const guessed =
      given === undefined ? questionLanguageLabel(index, options.languageOf ?? query) : undefined;
    const asked = versionOrThrow(index, options.version);
    const { versions } = siteLabels(index);
    // A question naming one version is searched in it when no filter says otherwise, and the version's
    // name is then a filter, not search words (version-mentions.ts).
    const named = mentionedVersions(versions, query);
    const implied = asked === undefined && named.length === 1 ? named[0] : undefined;
    const version = asked ?? implied;
    const searched = version === undefined ? query : withoutVersionMentions(versions, query, [version]);
    const language = given ?? guessed;
    // A guessed language and a version the question names are preferences: when their pages have
    // nothing, every language is searched, then the question as typed in every version (the filter
    // given, if any), again in its language first.
    const attempts: { query: string; version: string | undefined; language: string | undefined }[] = [
      { query: searched, version, language },
    ];
    if (guessed !== undefined) attempts.push({ query: searched, version, language: undefined });
    if (searched !== query || version !== asked) {
      attempts.push({ query, version: asked, language });
      if (guessed !== undefined) attempts.push({ query, version: asked, language: undefined });
    }
    const began = performance.now();
    let hits: SearchHit[] = [];
    let searchedIn = version;
    for (const attempt of attempts) {
      const o: SearchOptions = {
        ...options,
        version: attempt.version,
        language: attempt.language,
        landing: loaded.landing,
      };
      hits =
        this.options.embeddings && loaded.vectors
          ? await this.fusedHits(loaded, loaded.vectors, attempt.query, o)
          : searchIndex(index, attempt.query, o);
      searchedIn = attempt.version;
      if (hits.length > 0) break;
    }
    // A large site's search can hold the main thread for tens of milliseconds, and what follows (reading
    // the hits, composing an answer) runs on in the same task: let other requests in between.
    if (performance.now() - began > LONG_SEARCH_MS) await yieldToIo();
    const keys = hits.map((hit) => chunkKey(index, hit.chunkId));
    const rows = await chunkRows(this.storage, siteId, keys);
    const ownBase = linkableBaseUrl(loaded.baseUrl);
    const results: SearchResult[] = [];
    for (const [i, hit] of hits.entries()) {
      const { path, ord } = keys[i] ?? chunkKey(index, hit.chunkId);
      // Gone when an ingestion committed since this index was loaded: the next search loads the new one.
      const row = rows.get(rowKey(path, ord));
      if (!row) continue;
      const title = index.pathTitles.at(index.chunkPath[hit.chunkId] ?? 0);
      const labels = index.labelSets[index.chunkLabels[hit.chunkId] ?? 0];
      results.push({
        pagePath: path,
        url:
          ownBase === null
            ? pageUrl(this.options.publicUrl ?? null, path, row.anchor)
            : publishedUrl(ownBase, path, row.anchor),
        title,
        breadcrumbs: [title, ...(JSON.parse(row.headings) as string[])],
        anchor: row.anchor,
        text: row.text,
        score: hit.score,
        coverage: hit.coverage,
        versions: labels?.versions ?? [],
        languages: labels?.languages ?? [],
        searchedVersion: searchedIn ?? null,
      });
    }
    return results;
  }

  /**
   * A version filter as the site spells it (`siteVersionLabel`; undefined for none), or `invalid_input`
   * naming the site's versions when it has none such, as `search` would refuse it: for callers that must
   * refuse before they write anything, and store the filter as the site names it (the answer service).
   */
  async resolveVersion(
    siteId: string,
    version: string | null | undefined,
    known?: KnownSite,
  ): Promise<string | undefined> {
    if (!version?.trim()) return undefined;
    return versionOrThrow((await this.loadedFor(siteId, known)).index, version);
  }

  /**
   * The page a reader's current-page reference (a page id, URL path or URL, as `currentPath` takes it)
   * names, as the site's page id; null when it names none of the site's pages.
   */
  async pageOf(siteId: string, ref: string | null | undefined, known?: KnownSite): Promise<string | null> {
    if (!ref?.trim()) return null;
    const { index } = await this.loadedFor(siteId, known);
    const page = resolvePage(ref, index.pageByPath);
    return page === undefined ? null : index.pagePaths.at(page);
  }

  /** The versions and languages the site's pages carry (what its filters can name). */
  async labels(siteId: string, known?: KnownSite): Promise<SiteLabels> {
    return siteLabels((await this.loadedFor(siteId, known)).index);
  }

  /**
   * The cached index when it is at least as new as `known`, else the site's current one. Only the search
   * itself counts as a use of the cache (`counted`): the checks before it (a version, the current page,
   * the labels) peek, so that one question is one hit.
   */
  private async loadedFor(
    siteId: string,
    known: KnownSite | undefined,
    counted = false,
  ): Promise<LoadedIndex> {
    // Peeked, then counted by the one `get` that serves the search (here or in indexFor).
    const cached = known === undefined ? undefined : this.cache.peek(siteId);
    const fresh = cached !== undefined && known !== undefined && cached.generation >= known.index_generation;
    if (fresh && known !== undefined)
      return withSettings((counted ? this.cache.get(siteId) : undefined) ?? cached, known);
    return this.indexFor(siteId);
  }

  /**
   * Words and meaning: the lexical ranking's and the vector ranking's best `FUSION_CANDIDATES` chunks,
   * fused by reciprocal rank, then cut to the limit. A chunk found only by meaning has coverage 0
   * (coverage counts the question's words in the chunk, and it has none of the lexical candidates').
   * Without the query's vector (the model failed or was slow), the lexical ranking alone.
   */
  private async fusedHits(
    loaded: LoadedIndex,
    vectors: SiteVectors,
    query: string,
    options: SearchOptions,
  ): Promise<SearchHit[]> {
    const queryVector = await this.embedQuery(query);
    if (queryVector === null) return searchIndex(loaded.index, query, options);
    if (queryVector.length !== vectors.dimensions) {
      // The model behind the configured name changed (its vectors are no longer comparable): words alone
      // until an ingestion recomputes the site's vectors (embed-chunks.ts does once any chunk changed).
      if (!this.mismatchLogged.has(vectors)) {
        this.mismatchLogged.add(vectors);
        this.options.logger?.warn(
          {
            model: this.options.embeddings?.id,
            queryDimensions: queryVector.length,
            storedDimensions: vectors.dimensions,
          },
          'the embeddings model returns vectors of other dimensions than the site’s stored ones: searching by words alone; re-ingest the site with a changed page to recompute them',
        );
      }
      return searchIndex(loaded.index, query, options);
    }
    const { index } = loaded;
    const pool = Math.max(Math.floor(options.limit), FUSION_CANDIDATES);
    const lexical = searchIndex(index, query, { ...options, limit: pool });
    const version = options.version?.trim().toLowerCase() || null;
    const language = siteLanguageLabel(index, options.language);
    const semantic = nearestChunks(vectors, queryVector, pool, (chunk) =>
      chunkPassesFilter(index, chunk, version, language),
    );
    const byChunk = new Map(lexical.map((hit) => [hit.chunkId, hit]));
    return reciprocalRankFusion(
      [lexical.map((hit) => hit.chunkId), semantic.map((near) => near.chunk)],
      options.limit,
    ).map(({ chunk, score }) => ({
      chunkId: chunk,
      pagePath: chunkKey(index, chunk).path,
      score,
      coverage: byChunk.get(chunk)?.coverage ?? 0,
    }));
  }

  /** The query's vector, unit length; null when the model failed or took too long (logged once). */
  private async embedQuery(query: string): Promise<Float32Array | null> {
    const model = this.options.embeddings;
    if (!model) return null;
    const timeoutMs = this.options.queryEmbeddingTimeoutMs ?? QUERY_EMBEDDING_TIMEOUT_MS;
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    try {
      // Raced as well as aborted: a provider package that ignored the signal must not hold a reader.
      const vectors = await Promise.race([
        model.embed([query], abort.signal),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const error = new Error(`no query vector within ${timeoutMs} ms`);
            abort.abort(error);
            reject(error);
          }, timeoutMs);
        }),
      ]);
      const vector = vectors[0] === undefined ? null : normalized(vectors[0]);
      if (vector === null) throw new Error('the embeddings model returned no usable vector for the query');
      this.queryFailing = false;
      return vector;
    } catch (error) {
      if (!this.queryFailing)
        this.options.logger?.warn(
          { model: model.id, err: error },
          'query embedding failed: searching by words alone until it works again',
        );
      this.queryFailing = true;
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Drops cached indexes (all, or one site's). */
  invalidate(siteId?: string): void {
    if (siteId === undefined) this.cache.clear();
    else this.cache.delete(siteId);
  }

  private async indexFor(siteId: string): Promise<LoadedIndex> {
    const site = await this.storage.db
      .selectFrom('sites')
      .select(['index_generation', 'base_url', 'name'])
      .where('id', '=', siteId)
      .executeTakeFirst();
    // Deleted since the request found it (a DELETE racing it): the caller's 404, not a 500.
    if (!site) throw new DomainError('not_found', 'No such site');
    const cached = this.cache.get(siteId);
    if (cached && cached.generation === site.index_generation) return withSettings(cached, site);
    const inflight = this.loading.get(siteId);
    if (inflight) return inflight;
    const promise = this.load(siteId, site).finally(() => this.loading.delete(siteId));
    this.loading.set(siteId, promise);
    return promise;
  }

  /**
   * The site's stored index for its current generation; built (in a worker, one build at a time) and
   * stored when there is none, or when the stored one is of another format or damaged.
   */
  private async load(
    siteId: string,
    site: { index_generation: number; base_url: string | null; name: string },
  ): Promise<LoadedIndex> {
    const started = performance.now();
    let generation = site.index_generation;
    let stored = await readStoredIndex(this.storage, siteId, generation);
    if ('unusable' in stored && stored.unusable === 'missing') {
      const awaited = await this.storedByIngestion(siteId);
      if (awaited !== null) ({ generation, stored } = awaited);
    }
    let index: SearchIndex;
    let from: 'stored' | 'built';
    if ('bytes' in stored) {
      // The bytes' arrival (a worker's message, a collection of its garbage), the decoding and the first
      // search are each a task of their own: together they held the event loop for about 50 ms.
      await yieldToIo();
      index = decodeIndex(stored.bytes);
      from = 'stored';
    } else {
      if (stored.unusable !== 'missing')
        this.options.logger?.warn(
          { siteId, generation, reason: stored.unusable, detail: stored.detail },
          'stored search index unusable: rebuilding it',
        );
      const built = await this.build(siteId);
      // Deleted while its index was being loaded: as above.
      if (built === null) throw new DomainError('not_found', 'No such site');
      generation = built.generation;
      index = decodeIndexPieces(built.pieces);
      from = 'built';
      await writeStoredIndex(this.storage, siteId, generation, built.pieces);
    }
    await yieldToIo();
    const vectors = this.options.embeddings
      ? await siteVectors(this.storage, siteId, this.options.embeddings.id, index)
      : null;
    const entry: LoadedIndex = {
      generation,
      index,
      baseUrl: site.base_url,
      vectors,
      landing: { siteName: site.name, pages: await landingPagesOf(this.storage, siteId) },
    };
    const size = indexBytes(index) + (vectors?.matrix.byteLength ?? 0);
    // A load that raced an ingestion may hold an older generation than the newest: still one whole
    // version of the site, served until the next search sees the newer generation.
    this.cache.set(siteId, entry, size);
    this.options.logger?.info?.(
      {
        siteId,
        generation,
        from,
        bytes: size,
        chunks: index.chunkCount,
        ms: Math.round(performance.now() - started),
        cache: this.cache.stats(),
      },
      'search index loaded',
    );
    return entry;
  }

  /**
   * The stored index of the site's current generation once an ingestion of the site still running has
   * stored it; null when no ingestion is running (or it ends, or the wait is over) without one.
   */
  private async storedByIngestion(
    siteId: string,
  ): Promise<{ generation: number; stored: { bytes: Uint8Array } } | null> {
    const waitMs = this.options.storedIndexWaitMs ?? STORED_INDEX_WAIT_MS;
    const pollMs = this.options.storedIndexPollMs ?? STORED_INDEX_POLL_MS;
    const deadline = performance.now() + waitMs;
    while (performance.now() < deadline) {
      const ingesting = await this.storage.db
        .selectFrom('ingestion_jobs')
        .select('id')
        .where('site_id', '=', siteId)
        .where('status', 'in', ['queued', 'in_progress'])
        .executeTakeFirst();
      if (ingesting === undefined) return null;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      const site = await this.storage.db
        .selectFrom('sites')
        .select('index_generation')
        .where('id', '=', siteId)
        .executeTakeFirst();
      if (site === undefined) return null;
      const stored = await readStoredIndex(this.storage, siteId, site.index_generation);
      if ('bytes' in stored) return { generation: site.index_generation, stored };
      if (stored.unusable !== 'missing') return null;
    }
    return null;
  }

  private build(siteId: string): Promise<BuiltIndex | null> {
    const run = this.builds.then(() => buildSiteIndex(this.storage, siteId));
    this.builds = run.catch(() => undefined);
    return run;
  }
}

/** The cached index with the site's current base URL and name (a settings change keeps the index). */
function withSettings(loaded: LoadedIndex, site: KnownSite): LoadedIndex {
  if (loaded.baseUrl === site.base_url && loaded.landing.siteName === site.name) return loaded;
  return { ...loaded, baseUrl: site.base_url, landing: { ...loaded.landing, siteName: site.name } };
}

/**
 * The pages a question about the whole site may land on: in navigation order, the first page of each
 * version and language the navigation lists (the search takes the first its filters let through).
 */
async function landingPagesOf(storage: Storage, siteId: string): Promise<string[]> {
  const rows = await storage.db
    .selectFrom('pages')
    .select(['path', 'versions', 'languages'])
    .where('site_id', '=', siteId)
    .where('nav_order', 'is not', null)
    .orderBy('nav_order')
    .orderBy('path')
    .execute();
  const seen = new Set<string>();
  const pages: string[] = [];
  for (const row of rows) {
    const labels = `${row.versions}\u0000${row.languages}`;
    if (seen.has(labels)) continue;
    seen.add(labels);
    pages.push(row.path);
  }
  return pages;
}

/** A chunk's stored key (page and place), to read its text. */
const chunkKey = (index: SearchIndex, c: number): { path: string; ord: number } => ({
  path: index.paths.at(index.chunkPath[c] ?? 0),
  ord: index.chunkOrd[c] ?? 0,
});

const rowKey = (path: string, ord: number): string => `${ord}\u0000${path}`;

/** The stored text (and anchor, headings) of a search's hits, by page and place. */
async function chunkRows(
  storage: Storage,
  siteId: string,
  keys: { path: string; ord: number }[],
): Promise<Map<string, ChunkRow>> {
  const rows = new Map<string, ChunkRow>();
  for (const row of await readChunkRows(storage, siteId, keys)) rows.set(rowKey(row.page_path, row.ord), row);
  return rows;
}

/** A site's stored vectors under `model`, paired with the index's chunks by page and place. */
async function siteVectors(
  storage: Storage,
  siteId: string,
  model: string,
  index: SearchIndex,
): Promise<SiteVectors | null> {
  const rows = await storage.db
    .selectFrom('chunk_embeddings')
    .select(['page_path', 'ord', 'dimensions', 'vector'])
    .where('site_id', '=', siteId)
    .where('model', '=', model)
    .execute();
  if (rows.length === 0) return null;
  const chunkAt = new Map<string, number>();
  for (let c = 0; c < index.chunkCount; c++) {
    const { path, ord } = chunkKey(index, c);
    chunkAt.set(rowKey(path, ord), c);
  }
  const paired: StoredVector[] = [];
  for (const row of rows) {
    const chunk = chunkAt.get(rowKey(row.page_path, row.ord));
    if (chunk !== undefined) paired.push({ chunk, dimensions: row.dimensions, vector: row.vector });
  }
  return buildSiteVectors(paired);
}

/** Longest part of an unknown version an error repeats. */
const MAX_VERSION_ECHOED = 100;

function versionOrThrow(index: SearchIndex, version: string | undefined): string | undefined {
  const match = siteVersionLabel(index, version);
  if ('version' in match) return match.version;
  const asked = version?.trim() ?? '';
  const echoed = asked.length > MAX_VERSION_ECHOED ? `${asked.slice(0, MAX_VERSION_ECHOED)}…` : asked;
  throw new DomainError(
    'invalid_input',
    `These docs have no version ${JSON.stringify(echoed)}; their versions are ${listLabels(match.unknown)}`,
  );
}

/**
 * A base URL fit for readers' links: http(s) only. New base URLs are refused otherwise
 * (tenancy/sites.ts), but a database written before that check may still hold a `javascript:` one.
 */
export function linkableBaseUrl(baseUrl: string | null): string | null {
  return baseUrl !== null && /^https?:\/\//i.test(baseUrl) ? baseUrl : null;
}

/**
 * A section's URL on the site's own docs: an `index` page is its folder (`index` → `/`, `guides/index`
 * → `/guides/`), as Mintlify, Docusaurus and MkDocs publish it; `/index` is a 404 on most of them.
 * Docent's page view (`pageUrl`) keeps the id as it is.
 */
export function publishedUrl(baseUrl: string, pagePath: string, anchor: string | null): string {
  return pageUrl(baseUrl, pagePath.replace(/(^|\/)index$/, '$1'), anchor);
}

/**
 * A page's URL. A page path may hold what ends or changes a URL (an OpenAPI summary "Search ? query #
 * hash", "50% off"): those characters, white space and the other few a URL cannot hold as they are, are
 * percent-encoded; the rest, letters of any script included, stay readable.
 */
export function pageUrl(baseUrl: string | null, pagePath: string, anchor: string | null): string {
  const path = `/${pagePath.replace(/^\/+/, '').replace(/[%?#\s"<>\\^`{|}]/g, encodeURIComponent)}`;
  const hash = anchor ? `#${anchor}` : '';
  return `${baseUrl ? baseUrl.replace(/\/+$/, '') : ''}${path}${hash}`;
}
