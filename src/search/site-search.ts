import { readSnapshot, type Storage } from '../storage/database.ts';
import { buildSearchIndex, type SearchIndex, searchIndex } from './search-index.ts';
import type { IndexableChunk, SearchOptions } from './types.ts';

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
}

interface LoadedIndex {
  generation: number;
  index: SearchIndex;
  chunks: IndexableChunk[];
  anchors: (string | null)[];
  baseUrl: string | null;
}

export interface SiteSearchOptions {
  /** Used for links when the site has no base URL of its own. */
  publicUrl?: string | null;
}

/**
 * Per-process search over stored sites. The database is the source of truth; each site's index is
 * assembled from its stored, pre-analysed chunks and kept until the site's index generation moves,
 * which every ingestion bumps in the same transaction as its writes. Checking the generation costs
 * one indexed read per search and keeps several processes sharing a database correct.
 */
export class SiteSearch {
  private readonly cache = new Map<string, LoadedIndex>();
  private readonly loading = new Map<string, Promise<LoadedIndex>>();

  constructor(
    private readonly storage: Storage,
    private readonly options: SiteSearchOptions = {},
  ) {}

  /**
   * `known` is the site row as the caller just read it (the assistant route has it from its cached
   * tenancy reads): an index at least that new is used without reading the generation again, and
   * links use its base URL. A newer generation than the cached index loads the site again.
   */
  async search(
    siteId: string,
    query: string,
    options: SearchOptions,
    known?: { index_generation: number; base_url: string | null },
  ): Promise<SearchResult[]> {
    const cached = known === undefined ? undefined : this.cache.get(siteId);
    const loaded =
      cached !== undefined && known !== undefined && cached.generation >= known.index_generation
        ? { ...cached, baseUrl: known.base_url }
        : await this.indexFor(siteId);
    const hits = searchIndex(loaded.index, query, options);
    return hits.map((hit) => {
      const chunk = loaded.chunks[hit.chunkId];
      if (!chunk) throw new Error(`search returned unknown chunk ${hit.chunkId}`);
      const anchor = loaded.anchors[hit.chunkId] ?? null;
      return {
        pagePath: chunk.pagePath,
        url: pageUrl(
          linkableBaseUrl(loaded.baseUrl) ?? this.options.publicUrl ?? null,
          chunk.pagePath,
          anchor,
        ),
        title: chunk.pageTitle,
        breadcrumbs: [chunk.pageTitle, ...chunk.headings],
        anchor,
        text: chunk.text,
        score: hit.score,
        coverage: hit.coverage,
        versions: chunk.versions,
        languages: chunk.languages,
      };
    });
  }

  /** Drops cached indexes (all, or one site's). */
  invalidate(siteId?: string): void {
    if (siteId === undefined) this.cache.clear();
    else this.cache.delete(siteId);
  }

  private async indexFor(siteId: string): Promise<LoadedIndex> {
    const site = await this.storage.db
      .selectFrom('sites')
      .select(['index_generation', 'base_url'])
      .where('id', '=', siteId)
      .executeTakeFirst();
    if (!site) throw new Error(`unknown site ${siteId}`);
    const cached = this.cache.get(siteId);
    if (cached && cached.generation === site.index_generation && cached.baseUrl === site.base_url)
      return cached;
    const inflight = this.loading.get(siteId);
    if (inflight) return inflight;
    const promise = this.load(siteId).finally(() => this.loading.delete(siteId));
    this.loading.set(siteId, promise);
    return promise;
  }

  private async load(siteId: string): Promise<LoadedIndex> {
    // Generation, pages and chunks must come from one snapshot, or the cache could pair a new
    // generation number with a half-read old site.
    const loaded = await readSnapshot(this.storage, async (trx) => {
      const site = await trx
        .selectFrom('sites')
        .select(['index_generation', 'base_url'])
        .where('id', '=', siteId)
        .executeTakeFirstOrThrow();
      const pages = await trx
        .selectFrom('pages')
        .select(['path', 'title', 'versions', 'languages'])
        .where('site_id', '=', siteId)
        .execute();
      const rows = await trx
        .selectFrom('chunks')
        .select(['page_path', 'ord', 'anchor', 'headings', 'text', 'analyzed'])
        .where('site_id', '=', siteId)
        .orderBy('page_path')
        .orderBy('ord')
        .execute();
      return { site, pages, rows };
    });
    const pageByPath = new Map(
      loaded.pages.map((page) => [
        page.path,
        {
          title: page.title,
          versions: JSON.parse(page.versions) as string[],
          languages: JSON.parse(page.languages) as string[],
        },
      ]),
    );
    const chunks: IndexableChunk[] = [];
    const anchors: (string | null)[] = [];
    for (const row of loaded.rows) {
      const page = pageByPath.get(row.page_path);
      if (!page) continue;
      chunks.push({
        id: chunks.length,
        pagePath: row.page_path,
        pageTitle: page.title,
        headings: JSON.parse(row.headings) as string[],
        text: row.text,
        versions: page.versions,
        languages: page.languages,
        // Storage's JSON text: the index build parses it one chunk at a time.
        analyzed: row.analyzed,
      });
      anchors.push(row.anchor);
    }
    const index = buildSearchIndex(chunks);
    // The stored analysis is the index's input only; kept, parsed, it was most of a big site's memory
    // (crewai-docs: 58 of the 87 MB of heap its loaded index took).
    for (const chunk of chunks) chunk.analyzed = null;
    const entry: LoadedIndex = {
      generation: loaded.site.index_generation,
      index,
      chunks,
      anchors,
      baseUrl: loaded.site.base_url,
    };
    this.cache.set(siteId, entry);
    return entry;
  }
}

/**
 * A base URL fit for readers' links: http(s) only. New base URLs are refused otherwise
 * (tenancy/sites.ts), but a database written before that check may still hold a `javascript:` one.
 */
export function linkableBaseUrl(baseUrl: string | null): string | null {
  return baseUrl !== null && /^https?:\/\//i.test(baseUrl) ? baseUrl : null;
}

export function pageUrl(baseUrl: string | null, pagePath: string, anchor: string | null): string {
  const path = `/${pagePath.replace(/^\/+/, '')}`;
  const hash = anchor ? `#${anchor}` : '';
  return `${baseUrl ? baseUrl.replace(/\/+$/, '') : ''}${path}${hash}`;
}
