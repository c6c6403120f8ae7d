import { LRUCache } from 'lru-cache';
import type { LlmsTemplate } from './llms-txt.ts';

/**
 * Memory kept for generated llms.txt and llms-full.txt templates, all sites together. llms-full.txt is
 * public and up to MAX_LLMS_FULL_BYTES: read from every stored page on each request, anyone could keep the
 * server re-reading a large site's pages; kept, a request for an unchanged text costs a lookup and a join.
 */
export const MAX_LLMS_CACHE_BYTES = 64 * 1024 * 1024;

/** Sites' files whose latest cached key is remembered (the oldest remembered goes first). */
const MAX_LATEST_ENTRIES = 100_000;

/**
 * Generated templates by what they are made of: the file, the site (id, domain and name) and the index
 * generation. Docent's address is not part of it: a template is any address's text (renderLlmsText), so
 * requests naming new Host values share one. An ingestion or a rename is another key, and the
 * site's file under its previous key leaves the cache then; others leave by least recent use. Concurrent requests for one key share
 * one generation.
 */
export class LlmsTextCache {
  readonly #cache: LRUCache<string, LlmsTemplate, () => Promise<LlmsTemplate | undefined>>;

  constructor(maxBytes = MAX_LLMS_CACHE_BYTES) {
    this.#cache = new LRUCache({
      maxSize: maxBytes,
      sizeCalculation: (value) =>
        Math.max(
          1,
          value.data.length +
            value.pieceEnds.byteLength +
            value.unitPieces.byteLength +
            value.unitIsPage.length,
        ),
      fetchMethod: (_key, _stale, { context }) => context(),
    });
  }

  /** The key last fetched for each file of each site: an older generation's is never asked for again. */
  readonly #latest = new Map<string, string>();

  get(
    key: {
      file: string;
      siteId: string;
      domain: string;
      name: string;
      generation: number;
    },
    generate: () => Promise<LlmsTemplate | undefined>,
  ): Promise<LlmsTemplate | undefined> {
    const id = [key.file, key.siteId, key.domain, key.name, key.generation].join('\u0000');
    // A new generation (or name) of a site's file makes the one before dead weight: it goes now, not
    // when the budget runs out (a soak found ten re-ingestions' texts kept).
    const file = `${key.file}\u0000${key.siteId}`;
    const before = this.#latest.get(file);
    if (before !== id) {
      if (before !== undefined) this.#cache.delete(before);
      this.#latest.set(file, id);
      // Bounded like the cache: a site whose files left it has no entry worth keeping here either.
      if (this.#latest.size > MAX_LATEST_ENTRIES)
        this.#latest.delete(this.#latest.keys().next().value as string);
    }
    return this.#cache.fetch(id, { context: generate });
  }
}
