import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../limits/limits-fixtures.ts';
import type { Storage } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { findKeyByHash, hashKey, revokeApiKey } from './api-keys.ts';
import { upsertPlan } from './plans.ts';
import { createSite, updateSite } from './sites.ts';
import { TenancyCache } from './tenancy-cache.ts';

/**
 * The same storage, with every SELECT it runs counted: a Kysely plugin sees each query once as it
 * is compiled for execution, whichever repository function built it.
 */
function countingReads(storage: Storage): { storage: Storage; reads: () => number } {
  let reads = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      if (args.node.kind === 'SelectQueryNode') reads++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { storage: { ...storage, db: storage.db.withPlugin(plugin) }, reads: () => reads };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(dialects)('tenancy cache on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** A tenant and the hash and id of its assistant key. */
  async function tenant(domain: string) {
    const { storage } = database;
    const created = await createTenant(storage, { domain, plan: { monthlyCredits: 100 } });
    const hash = hashKey(created.assistantKey);
    const key = await findKeyByHash(storage, hash);
    if (!key) throw new Error('fixture key missing');
    return { ...created, hash, keyId: key.id };
  }

  /** Changes the key, the site and the plan directly in the database (as the CLI or another process would). */
  async function changeEverything(t: Awaited<ReturnType<typeof tenant>>) {
    const { storage } = database;
    await revokeApiKey(storage, t.organization.id, t.keyId);
    await updateSite(storage, t.site.id, { name: 'Renamed' });
    await upsertPlan(storage, t.organization.plan, { monthlyCredits: 999 });
  }

  it('does not see changes made in the database within the TTL, and sees them after clear()', async () => {
    const t = await tenant('within-ttl');
    const cache = new TenancyCache(database.storage, 60_000);
    expect((await cache.keyByHash(t.hash))?.revoked_at).toBeNull();
    expect((await cache.siteByDomain('within-ttl'))?.name).toBe('within-ttl');
    expect((await cache.organizationPlan(t.organization.id))?.monthlyCredits).toBe(100);

    await changeEverything(t);
    expect((await findKeyByHash(database.storage, t.hash))?.revoked_at).not.toBeNull();

    expect((await cache.keyByHash(t.hash))?.revoked_at).toBeNull();
    expect((await cache.siteByDomain('within-ttl'))?.name).toBe('within-ttl');
    expect((await cache.organizationPlan(t.organization.id))?.monthlyCredits).toBe(100);

    cache.clear();
    expect((await cache.keyByHash(t.hash))?.revoked_at).not.toBeNull();
    expect((await cache.siteByDomain('within-ttl'))?.name).toBe('Renamed');
    expect((await cache.organizationPlan(t.organization.id))?.monthlyCredits).toBe(999);
  });

  it('sees changes once a short TTL has passed', async () => {
    // Long enough that the writes below (several statements on PostgreSQL, on a loaded CI machine)
    // always finish within it: at 80 ms they once did not.
    const ttlMs = 1_000;
    const t = await tenant('short-ttl');
    const cache = new TenancyCache(database.storage, ttlMs);
    await Promise.all([
      cache.keyByHash(t.hash),
      cache.siteByDomain('short-ttl'),
      cache.organizationPlan(t.organization.id),
    ]);
    await changeEverything(t);
    const [key, site, plan] = await Promise.all([
      cache.keyByHash(t.hash),
      cache.siteByDomain('short-ttl'),
      cache.organizationPlan(t.organization.id),
    ]);
    expect(key?.revoked_at).toBeNull();
    expect(site?.name).toBe('short-ttl');
    expect(plan?.monthlyCredits).toBe(100);

    await sleep(ttlMs + 40);
    expect((await cache.keyByHash(t.hash))?.revoked_at).not.toBeNull();
    expect((await cache.siteByDomain('short-ttl'))?.name).toBe('Renamed');
    expect((await cache.organizationPlan(t.organization.id))?.monthlyCredits).toBe(999);
  });

  it('reads fresh rows on every call with ttl 0', async () => {
    const t = await tenant('no-cache');
    const counted = countingReads(database.storage);
    const cache = new TenancyCache(counted.storage, 0);
    expect((await cache.keyByHash(t.hash))?.revoked_at).toBeNull();
    expect((await cache.siteByDomain('no-cache'))?.name).toBe('no-cache');
    expect((await cache.organizationPlan(t.organization.id))?.monthlyCredits).toBe(100);
    await changeEverything(t);
    expect((await cache.keyByHash(t.hash))?.revoked_at).not.toBeNull();
    expect((await cache.siteByDomain('no-cache'))?.name).toBe('Renamed');
    expect((await cache.organizationPlan(t.organization.id))?.monthlyCredits).toBe(999);
    expect(counted.reads()).toBe(6);
    await cache.keyByHash(t.hash);
    await cache.keyByHash(t.hash);
    expect(counted.reads()).toBe(8);
  });

  it('returns undefined for unknown keys, domains and organizations, and finds rows created afterwards at once', async () => {
    const { storage } = database;
    const cache = new TenancyCache(storage, 60_000);
    const secret = `svc_dsc_late_${newId('x')}`;
    const hash = hashKey(secret);
    const organizationId = newId('org');
    expect(await cache.keyByHash(hash)).toBeUndefined();
    expect(await cache.siteByDomain('late-site')).toBeUndefined();
    expect(await cache.organizationPlan(organizationId)).toBeUndefined();

    await storage.db
      .insertInto('organizations')
      .values({ id: organizationId, name: 'late', plan: 'free', created_at: new Date().toISOString() })
      .execute();
    const site = await createSite(storage, { organizationId, domain: 'late-site' });
    await storage.db
      .insertInto('api_keys')
      .values({
        id: newId('key'),
        organization_id: organizationId,
        site_id: site.id,
        kind: 'assistant',
        name: null,
        prefix: 'svc_dsc_',
        last_four: secret.slice(-4),
        key_hash: hash,
        created_at: new Date().toISOString(),
        expires_at: null,
        revoked_at: null,
        last_used_at: null,
      })
      .execute();

    expect((await cache.keyByHash(hash))?.organization_id).toBe(organizationId);
    expect((await cache.siteByDomain('late-site'))?.id).toBe(site.id);
    expect((await cache.organizationPlan(organizationId))?.id).toBe('free');
  });

  it('reads the database once for concurrent lookups of one missing entry, and does not keep the miss', async () => {
    const counted = countingReads(database.storage);
    const cache = new TenancyCache(counted.storage, 60_000);
    const missingHash = hashKey('svc_dsc_never_issued');

    const keys = await Promise.all(Array.from({ length: 20 }, () => cache.keyByHash(missingHash)));
    expect(keys.every((k) => k === undefined)).toBe(true);
    expect(counted.reads()).toBe(1);
    const sites = await Promise.all(Array.from({ length: 20 }, () => cache.siteByDomain('never-created')));
    expect(sites.every((s) => s === undefined)).toBe(true);
    expect(counted.reads()).toBe(2);
    const plans = await Promise.all(Array.from({ length: 20 }, () => cache.organizationPlan('org_missing')));
    expect(plans.every((p) => p === undefined)).toBe(true);
    expect(counted.reads()).toBe(3);

    // A miss is not cached: the next lookup asks the database again.
    expect(await cache.keyByHash(missingHash)).toBeUndefined();
    expect(counted.reads()).toBe(4);
  });

  it('reads the database once for concurrent lookups of one present entry, then serves it from memory', async () => {
    const t = await tenant('concurrent-hit');
    const counted = countingReads(database.storage);
    const cache = new TenancyCache(counted.storage, 60_000);
    const keys = await Promise.all(Array.from({ length: 20 }, () => cache.keyByHash(t.hash)));
    expect(new Set(keys.map((k) => k?.id))).toEqual(new Set([t.keyId]));
    expect(counted.reads()).toBe(1);
    for (let i = 0; i < 5; i++) {
      await cache.keyByHash(t.hash);
      await cache.siteByDomain('concurrent-hit');
      await cache.organizationPlan(t.organization.id);
    }
    expect(counted.reads()).toBe(3);
  });

  // lru-cache aborts fetches in flight on clear(); the admin API clears after every change and the app
  // when an ingestion settles, so a concurrent assistant request must still get its rows (not a 500).
  it('resolves lookups that are in flight when clear() is called', async () => {
    const t = await tenant('clear-in-flight');
    const cache = new TenancyCache(database.storage, 60_000);
    const key = cache.keyByHash(t.hash);
    const site = cache.siteByDomain('clear-in-flight');
    const plan = cache.organizationPlan(t.organization.id);
    cache.clear();
    const settled = await Promise.allSettled([key, site, plan]);
    expect(settled.map((s) => (s.status === 'rejected' ? String(s.reason) : 'ok'))).toEqual([
      'ok',
      'ok',
      'ok',
    ]);
    expect((await key)?.id).toBe(t.keyId);
    expect((await site)?.id).toBe(t.site.id);
    expect((await plan)?.monthlyCredits).toBe(100);
  });
});
