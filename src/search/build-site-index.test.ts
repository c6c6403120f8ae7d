import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { type SeedPage, seedSite } from '../testing/seed-site.ts';
import { buildSiteIndex, closeIdleIndexBuildWorker, keptIndexBuildWorker } from './build-site-index.ts';

const pages = (words: string[]): SeedPage[] =>
  words.map((word, i) => ({
    path: `guides/${word}`,
    title: `${word} guide`,
    versions: i % 2 === 0 ? ['v1'] : ['v2'],
    chunks: [`How to set up ${word} step by step.`, `Errors you may see with ${word} and their fixes.`],
  }));

const bytesOf = (pieces: Uint8Array[]): number[] => pieces.flatMap((p) => [...p]);

describe('the index build worker', () => {
  let database: TestDatabase;
  const sites: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const organizationId = (await createOrganization(database.storage, { name: 'o' })).id;
    for (const [domain, words] of [
      ['large', ['keys', 'billing', 'webhooks', 'streaming', 'limits', 'exports']],
      ['small', ['teams', 'roles']],
    ] as const) {
      const site = await createSite(database.storage, { organizationId, domain });
      await seedSite(database.storage, site.id, pages([...words]));
      sites.push(site.id);
    }
  });
  afterAll(async () => {
    await closeIdleIndexBuildWorker();
    await database.drop();
  });

  it('is kept after a small build and builds the next site exactly as a fresh worker does', async () => {
    const [large, small] = sites as [string, string];
    await closeIdleIndexBuildWorker();
    expect(keptIndexBuildWorker()).toBeNull();

    const first = await buildSiteIndex(database.storage, large);
    const kept = keptIndexBuildWorker();
    expect(kept).not.toBeNull();
    // The kept worker built the large site last: nothing of it may leak into the small site's index.
    const reused = await buildSiteIndex(database.storage, small);
    expect(keptIndexBuildWorker()).toBe(kept);

    await closeIdleIndexBuildWorker();
    expect(keptIndexBuildWorker()).toBeNull();
    const fresh = await buildSiteIndex(database.storage, small);
    expect(keptIndexBuildWorker()).not.toBe(kept);
    expect(bytesOf(reused?.pieces ?? [])).toEqual(bytesOf(fresh?.pieces ?? []));
    expect(bytesOf(first?.pieces ?? []).length).toBeGreaterThan(bytesOf(fresh?.pieces ?? []).length);
  });
});
