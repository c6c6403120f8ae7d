import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { createApiKey, getApiKey, LAST_USED_RESOLUTION_MS } from './api-keys.ts';
import { findConsoleSession, signInToConsole } from './console-sessions.ts';
import { createOrganization } from './organizations.ts';

describe('console sessions', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("count as uses of the admin key that opened them (the keys screen's 'last used')", async () => {
    const { storage } = database;
    const org = await createOrganization(storage, { name: 'owner' });
    const created = await createApiKey(storage, { organizationId: org.id, siteId: null, kind: 'admin' });
    const lastUsed = async () => (await getApiKey(storage, org.id, created.record.id))?.last_used_at ?? null;
    expect(await lastUsed()).toBeNull();

    const signedInAt = new Date('2026-11-27T10:00:00Z');
    const { secret } = await signInToConsole(storage, created.key, signedInAt);
    expect(await lastUsed()).toBe(signedInAt.toISOString());

    const later = new Date(signedInAt.getTime() + LAST_USED_RESOLUTION_MS + 1_000);
    expect(await findConsoleSession(storage, secret, later)).toBeDefined();
    expect(await lastUsed()).toBe(later.toISOString());
  });
});
