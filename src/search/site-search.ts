import type { Kysely } from 'kysely';
import { readSnapshot, type Storage } from '../storage/database.ts';
import type { Database } from '../storage/schema.ts';
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
import { buildSearchIndex, type SearchIndex, searchIndex } from './search-index.ts';
import type { IndexableChunk, SearchHit, SearchOptions } from './types.ts';

/** Longest wait for a query's vector before the search goes on with words alone. */
export const QUERY_EMBEDDING_TIMEOUT_MS = 2_000;

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
  /** The chunks' vectors under the configured embeddings model; null: none (or no model). */
  vectors: SiteVectors | null;
}

export interface SiteSearchOptions {
  /** Used for links when the site has no base URL of its own. */
  publicUrl?: string | null;
  /**
   * Semantic retrieval (`DOCENT_EMBEDDINGS`): a site with vectors of this model is searched by words
   * and by meaning, the two rankings fused. Absent or null: words only, as without it.
   */
  embeddings?: EmbeddingModel | null;
  /** Longest wait for a query's vector (default `QUERY_EMBEDDING_TIMEOUT_MS`). */
  queryEmbeddingTimeoutMs?: number;
  /** Told once when queries cannot be embedded (again after one could). */
  logger?: { warn(object: object, message: string): void };
}

/**
 * Per-process search over stored sites. The database is the source of truth; each site's index is
 * assembled from its stored, pre-analysed chunks and kept until the site's index generation moves,
 * which every ingestion bumps in the same transaction as its writes (and again when it writes chunk
 * vectors, which are loaded with the index). Checking the generation costs one indexed read per search
 * and keeps several processes sharing a database correct.
 */
export class SiteSearch {
  private readonly cache = new Map<string, LoadedIndex>();
  private readonly loading = new Map<string, Promise<LoadedIndex>>();
  /** Whether the last query embedding failed: the failure is logged once, not per search. */
  private queryFailing = false;

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
    const hits =
      this.options.embeddings && loaded.vectors
        ? await this.fusedHits(loaded, loaded.vectors, query, options)
        : searchIndex(loaded.index, query, options);
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
    const pool = Math.max(Math.floor(options.limit), FUSION_CANDIDATES);
    const lexical = searchIndex(loaded.index, query, { ...options, limit: pool });
    const version = options.version?.trim().toLowerCase() || null;
    const language = options.language?.trim().toLowerCase() || null;
    const { chunkVersions, chunkLanguages } = loaded.index;
    const passes = (labels: readonly string[] | undefined, wanted: string | null): boolean =>
      wanted === null || labels === undefined || labels.length === 0 || labels.includes(wanted);
    const semantic = nearestChunks(
      vectors,
      queryVector,
      pool,
      (chunk) => passes(chunkVersions[chunk], version) && passes(chunkLanguages[chunk], language),
    );
    const byChunk = new Map(lexical.map((hit) => [hit.chunkId, hit]));
    return reciprocalRankFusion(
      [lexical.map((hit) => hit.chunkId), semantic.map((near) => near.chunk)],
      options.limit,
    ).map(({ chunk, score }) => ({
      chunkId: chunk,
      pagePath: loaded.chunks[chunk]?.pagePath ?? '',
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
      const vectors = this.options.embeddings
        ? await storedVectors(trx, siteId, this.options.embeddings.id)
        : [];
      return { site, pages, rows, vectors };
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
    // Chunk place by page and ord, to pair stored vectors with chunks; only kept when there are vectors.
    const chunkAt = loaded.vectors.length > 0 ? new Map<string, number>() : null;
    for (const row of loaded.rows) {
      const page = pageByPath.get(row.page_path);
      if (!page) continue;
      chunkAt?.set(chunkKey(row.page_path, row.ord), chunks.length);
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
    const paired: StoredVector[] = [];
    for (const row of loaded.vectors) {
      const chunk = chunkAt?.get(chunkKey(row.page_path, row.ord));
      if (chunk !== undefined) paired.push({ chunk, dimensions: row.dimensions, vector: row.vector });
    }
    const entry: LoadedIndex = {
      generation: loaded.site.index_generation,
      index,
      chunks,
      anchors,
      baseUrl: loaded.site.base_url,
      vectors: buildSiteVectors(paired),
    };
    this.cache.set(siteId, entry);
    return entry;
  }
}

const chunkKey = (pagePath: string, ord: number): string => `${ord}\u0000${pagePath}`;

/** A site's stored vectors under `model`, read in the snapshot its chunks are read in. */
function storedVectors(db: Kysely<Database>, siteId: string, model: string) {
  return db
    .selectFrom('chunk_embeddings')
    .select(['page_path', 'ord', 'dimensions', 'vector'])
    .where('site_id', '=', siteId)
    .where('model', '=', model)
    .execute();
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
