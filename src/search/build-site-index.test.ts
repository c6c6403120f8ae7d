import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { type SeedPage, seedSite } from '../testing/seed-site.ts';
import {
  buildSiteIndex,
  closeIdleIndexBuildWorker,
  keptIndexBuildWorker,
  removeAbandonedSpills,
  storeSiteIndex,
} from './build-site-index.ts';
import { INDEX_PART_BYTES } from './index-parts.ts';
import { readStoredIndex, storedIndexParts } from './stored-index.ts';

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

  it('stores, streamed part by part, the bytes the whole build makes', async () => {
    for (const siteId of sites) {
      const whole = await buildSiteIndex(database.storage, siteId);
      const stored = await storeSiteIndex(database.storage, siteId);
      expect(stored).toEqual({ generation: whole?.generation, published: true });
      const read = await readStoredIndex(database.storage, siteId, whole?.generation ?? -1);
      expect('bytes' in read && [...read.bytes]).toEqual(bytesOf(whole?.pieces ?? []));
    }
  });

  it("removes the spill folders of processes that ended during a build, and no one else's", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-spills-test-'));
    try {
      // A process that has ended: its id is free (until reused, which the check would take as running).
      const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout;
      // This process's id but none of its builds: a container restarted with the same id.
      const names = [
        `docent-index-${ended}-a1`,
        `docent-index-${process.pid}-b2`,
        `docent-index-${process.ppid}-c3`,
        'docent-index-x-d4',
        'other',
      ];
      for (const name of names) fs.mkdirSync(path.join(dir, name));
      fs.writeFileSync(path.join(dir, names[0] ?? '', 'runs'), 'x');
      removeAbandonedSpills(dir);
      expect(fs.readdirSync(dir).sort()).toEqual(names.slice(2).sort());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(dialects)('a streamed index of several parts on %s', (dialect) => {
  let database: TestDatabase;
  afterAll(async () => {
    await closeIdleIndexBuildWorker();
    await database?.drop();
  });

  it('is stored part by part with the bytes of the whole build, and read back whole', async () => {
    database = await createTestDatabase(dialect);
    const organizationId = (await createOrganization(database.storage, { name: 'o' })).id;
    const site = await createSite(database.storage, { organizationId, domain: 'parts' });
    // Made-up words, so that word pairs are many and the index passes two parts.
    let seed = 17;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const word = () => `w${Math.floor(next() * 20_000).toString(36)}`;
    await seedSite(
      database.storage,
      site.id,
      Array.from({ length: 300 }, (_, p) => ({
        path: `ref/page-${p}`,
        title: `Page ${p}`,
        chunks: Array.from({ length: 8 }, () => Array.from({ length: 60 }, word).join(' ')),
      })),
    );
    const whole = await buildSiteIndex(database.storage, site.id);
    const bytes = bytesOf(whole?.pieces ?? []);
    expect(bytes.length).toBeGreaterThan(INDEX_PART_BYTES);
    expect(await storeSiteIndex(database.storage, site.id)).toEqual({
      generation: whole?.generation,
      published: true,
    });
    const parts = await storedIndexParts(database.storage, site.id, whole?.generation ?? -1);
    expect('parts' in parts && parts.parts.length).toBe(Math.ceil(bytes.length / INDEX_PART_BYTES));
    const read = await readStoredIndex(database.storage, site.id, whole?.generation ?? -1, {
      workerFromBytes: Number.POSITIVE_INFINITY,
    });
    expect('bytes' in read && Buffer.compare(read.bytes, Buffer.from(bytes))).toBe(0);
  });
});
