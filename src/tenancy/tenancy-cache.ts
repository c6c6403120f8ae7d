import { LRUCache } from 'lru-cache';
import type { Storage } from '../storage/database.ts';
import { type ApiKey, findKeyByHash } from './api-keys.ts';
import { getOrganizationPlan, type Plan } from './plans.ts';
import { getSiteByDomain, type Site } from './sites.ts';

/** How long a key, site or plan read for the assistant route is reused (`DOCENT_TENANCY_CACHE_MS`). */
export const DEFAULT_TENANCY_CACHE_MS = 5_000;
/** Entries of each kind kept; the least recently used go first. */
export const TENANCY_CACHE_ENTRIES = 10_000;

/**
 * The assistant route reads the same key, site and plan rows on every request; this keeps them for
 * `ttlMs`. Changes made through this process's admin API clear it at once (`clear`, called by the
 * admin router after every change); changes made elsewhere (the CLI, another server process) are seen
 * within `ttlMs`. A key's expiry is still checked on every request against the cached row.
 *
 * `ttlMs = 0` turns the cache off. Unknown keys and domains are not cached, so they cannot crowd out
 * the real ones.
 */
export class TenancyCache {
  readonly #keys: LRUCache<string, ApiKey> | undefined;
  readonly #sites: LRUCache<string, Site> | undefined;
  readonly #plans: LRUCache<string, Plan> | undefined;
  #clears = 0;

  constructor(
    private readonly storage: Storage,
    ttlMs = DEFAULT_TENANCY_CACHE_MS,
  ) {
    if (ttlMs <= 0) return;
    const options = { max: TENANCY_CACHE_ENTRIES, ttl: ttlMs, ttlAutopurge: false } as const;
    this.#keys = new LRUCache<string, ApiKey>({
      ...options,
      fetchMethod: (hash) => findKeyByHash(this.storage, hash),
    });
    this.#sites = new LRUCache<string, Site>({
      ...options,
      fetchMethod: (domain) => getSiteByDomain(this.storage, domain),
    });
    this.#plans = new LRUCache<string, Plan>({
      ...options,
      fetchMethod: (organizationId) => getOrganizationPlan(this.storage, organizationId),
    });
  }

  /** The key row stored under `hash`, live or not (check with `keyIsActive`). */
  keyByHash(hash: string): Promise<ApiKey | undefined> {
    return this.#read(this.#keys, hash, () => findKeyByHash(this.storage, hash));
  }

  siteByDomain(domain: string): Promise<Site | undefined> {
    return this.#read(this.#sites, domain, () => getSiteByDomain(this.storage, domain));
  }

  /** The organization's plan; undefined when the organization does not exist. */
  organizationPlan(organizationId: string): Promise<Plan | undefined> {
    return this.#read(this.#plans, organizationId, () => getOrganizationPlan(this.storage, organizationId));
  }

  /** Forgets everything: the next request reads fresh rows. */
  clear(): void {
    this.#clears++;
    this.#keys?.clear();
    this.#sites?.clear();
    this.#plans?.clear();
  }

  async #read<V extends object>(
    cache: LRUCache<string, V> | undefined,
    id: string,
    load: () => Promise<V | undefined>,
  ): Promise<V | undefined> {
    if (cache === undefined) return load();
    const clears = this.#clears;
    try {
      return await cache.fetch(id);
    } catch (error) {
      // `clear` aborts reads in flight (they may predate the change that cleared the cache): read again,
      // uncached, rather than fail the request.
      if (this.#clears !== clears) return load();
      throw error;
    }
  }
}
