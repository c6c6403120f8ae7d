import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { smallDocs } from '../testing/small-docs.ts';
import { createApiKey, KeyCreationLimitError, listApiKeys, MAX_KEYS_CREATED_PER_HOUR } from './api-keys.ts';
import { bootstrapSite } from './bootstrap-site.ts';
import { DEMO_PAGE_KEY_NAME, mintDemoPageKey } from './demo-page-key.ts';

describe('the demo page key made at each start', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await database.drop();
  });

  it('is made on every start, also past the organization’s hourly key cap, which still holds for it', async () => {
    const demo = await bootstrapSite(database.storage, { domain: 'demo', docsDir: smallDocs() });
    const organizationId = demo.organization.id;
    // More starts within an hour than the cap allows keys (a restart loop, a developer's edits):
    // each start used to fail with "docent failed to start: KeyCreationLimitError".
    let last: string | undefined;
    for (let start = 0; start <= MAX_KEYS_CREATED_PER_HOUR; start++)
      last = await mintDemoPageKey(database.storage, 'demo');
    expect(last).toMatch(/^svc_dsc_/);
    const live = (await listApiKeys(database.storage, organizationId, { kind: 'assistant' })).filter(
      (k) => k.name === DEMO_PAGE_KEY_NAME && k.revoked_at === null,
    );
    expect(live.map((k) => k.last_four)).toEqual([last?.slice(-4)]);
    // The organization's own key creation is still capped.
    await expect(
      createApiKey(database.storage, { organizationId, siteId: demo.site.id, kind: 'assistant' }),
    ).rejects.toBeInstanceOf(KeyCreationLimitError);
  });
});
