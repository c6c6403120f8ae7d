import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { ASSISTANT_KEY_PREFIX, createApiKey, findActiveKey, hashKey } from './api-keys.ts';
import { countOrganizations, createOrganization } from './organizations.ts';
import { createSite, DomainTakenError, domainSchema, getSiteByDomain } from './sites.ts';

describe('domainSchema', () => {
  it.each(['demo', 'my-docs', 'a', 'docs2'])('accepts %s', (domain) => {
    expect(domainSchema.safeParse(domain).success).toBe(true);
  });
  it.each(['', 'Demo', '-x', 'x-', 'a_b', 'a.b', 'x'.repeat(64), '../etc'])('rejects %j', (domain) => {
    expect(domainSchema.safeParse(domain).success).toBe(false);
  });
});

describe.each(dialects)('tenancy repositories on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database.drop();
  });

  it('creates organizations and sites with unique domains', async () => {
    const { storage } = database;
    const before = await countOrganizations(storage);
    const org = await createOrganization(storage, { name: 'Acme' });
    expect(await countOrganizations(storage)).toBe(before + 1);
    const site = await createSite(storage, { organizationId: org.id, domain: 'acme' });
    expect(site.index_generation).toBe(0);
    expect((await getSiteByDomain(storage, 'acme'))?.id).toBe(site.id);
    await expect(createSite(storage, { organizationId: org.id, domain: 'acme' })).rejects.toThrow(
      DomainTakenError,
    );
  });

  it('stores keys only as hashes and finds live keys', async () => {
    const { storage } = database;
    const org = await createOrganization(storage, { name: 'Keys' });
    const site = await createSite(storage, { organizationId: org.id, domain: 'keys' });
    const { key, record } = await createApiKey(storage, {
      organizationId: org.id,
      siteId: site.id,
      kind: 'assistant',
    });
    expect(key.startsWith(ASSISTANT_KEY_PREFIX)).toBe(true);
    expect(key).toHaveLength(ASSISTANT_KEY_PREFIX.length + 32);
    expect(record.key_hash).toBe(hashKey(key));
    expect(record.last_four).toBe(key.slice(-4));
    const row = await storage.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', record.id)
      .executeTakeFirstOrThrow();
    expect(Object.values(row)).not.toContain(key);

    expect((await findActiveKey(storage, key))?.id).toBe(record.id);
    // Flip the last character to a different one: a fixed replacement equals the key 1 time in 62.
    const tampered = `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`;
    expect(await findActiveKey(storage, tampered)).toBeUndefined();

    await storage.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date().toISOString() })
      .where('id', '=', record.id)
      .execute();
    expect(await findActiveKey(storage, key)).toBeUndefined();

    const expiring = await createApiKey(storage, {
      organizationId: org.id,
      siteId: site.id,
      kind: 'assistant',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(await findActiveKey(storage, expiring.key)).toBeDefined();
    expect(await findActiveKey(storage, expiring.key, new Date(Date.now() + 120_000))).toBeUndefined();
  });
});
