import { LRUCache } from 'lru-cache';
import type { LlmsText } from './llms-txt.ts';

/**
 * Memory kept for generated llms.txt and llms-full.txt texts, all sites together. llms-full.txt is
 * public and up to MAX_LLMS_FULL_BYTES: read from every stored page on each request, anyone could keep the
 * server re-reading a large site's pages; kept, a request for an unchanged text costs a lookup.
 */
export const MAX_LLMS_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Generated texts by what they are made of: the file, the site (id, domain and name), Docent's address
 * and the index generation. An ingestion, a rename or another address is another key, so nothing is
 * invalidated by hand; old texts leave by least recent use. Concurrent requests for one key share one
 * generation.
 */
export class LlmsTextCache {
  readonly #cache: LRUCache<string, LlmsText, () => Promise<LlmsText | undefined>>;

  constructor(maxBytes = MAX_LLMS_CACHE_BYTES) {
    this.#cache = new LRUCache({
      maxSize: maxBytes,
      // A JavaScript string holds up to two bytes a character.
      sizeCalculation: (value) => Math.max(1, value.text.length * 2),
      fetchMethod: (_key, _stale, { context }) => context(),
    });
  }

  get(
    key: {
      file: string;
      siteId: string;
      domain: string;
      name: string;
      docentUrl: string;
      generation: number;
    },
    generate: () => Promise<LlmsText | undefined>,
  ): Promise<LlmsText | undefined> {
    const id = [key.file, key.siteId, key.domain, key.name, key.docentUrl, key.generation].join('\u0000');
    return this.#cache.fetch(id, { context: generate });
  }
}
