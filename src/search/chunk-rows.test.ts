import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapSite } from '../tenancy/bootstrap-site.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { smallDocs } from '../testing/small-docs.ts';
import { CACHED_HIT_COUNTS, readChunkRows } from './chunk-rows.ts';

describe.each(dialects)('reading the stored text of search hits on %s', (dialect) => {
  let database: TestDatabase;
  let siteId: string;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    siteId = (await bootstrapSite(database.storage, { domain: 'docs', docsDir: smallDocs() })).site.id;
  });
  afterAll(async () => {
    await database?.drop();
  });

  const storedChunks = () =>
    database.storage.db
      .selectFrom('chunks')
      .select(['page_path', 'ord', 'anchor', 'headings', 'text'])
      .where('site_id', '=', siteId)
      .orderBy('page_path')
      .orderBy('ord')
      .execute();

  it('reads every asked chunk once, however many are asked (compiled once or not), and nothing that is not stored', async () => {
    const stored = await storedChunks();
    expect(stored.length).toBeGreaterThan(1);
    // More keys than a kept statement takes: keys no chunk has, then the site's chunks, each asked twice.
    const keys = [
      ...Array.from({ length: CACHED_HIT_COUNTS }, (_, i) => ({
        path: `missing'); drop table chunks; --${i}`,
        ord: i,
      })),
      ...stored.map((row) => ({ path: row.page_path, ord: row.ord })),
      ...stored.map((row) => ({ path: row.page_path, ord: row.ord })),
    ];
    expect(keys.length).toBeGreaterThan(CACHED_HIT_COUNTS);
    const rows = await readChunkRows(database.storage, siteId, keys);
    const byKey = new Map(rows.map((row) => [`${row.page_path}#${row.ord}`, row]));
    expect(
      [...byKey.values()].sort((a, b) => a.page_path.localeCompare(b.page_path) || a.ord - b.ord),
    ).toEqual([...stored].sort((a, b) => a.page_path.localeCompare(b.page_path) || a.ord - b.ord));
    expect(await storedChunks()).toHaveLength(stored.length);
  });

  it('reads one hit, and none', async () => {
    const [first] = await storedChunks();
    if (!first) throw new Error('no chunk stored');
    expect(
      await readChunkRows(database.storage, siteId, [{ path: first.page_path, ord: first.ord }]),
    ).toEqual([first]);
    expect(await readChunkRows(database.storage, siteId, [])).toEqual([]);
  });

  it('never reads another site’s chunks', async () => {
    const [first] = await storedChunks();
    if (!first) throw new Error('no chunk stored');
    expect(
      await readChunkRows(database.storage, 'site_other', [{ path: first.page_path, ord: first.ord }]),
    ).toEqual([]);
  });
});
