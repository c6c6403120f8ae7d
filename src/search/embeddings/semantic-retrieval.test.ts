import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ingestSite } from '../../ingest/ingest-site.ts';
import { getIngestionJob } from '../../ingest/jobs.ts';
import type { Storage } from '../../storage/database.ts';
import { IngestionRunner } from '../../tenancy/ingestion-runner.ts';
import { createOrganization } from '../../tenancy/organizations.ts';
import { createSite, getIndexGeneration } from '../../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../../testing/databases.ts';
import { SiteSearch } from '../site-search.ts';
import { EMBED_BATCH_SIZE } from './embed-chunks.ts';
import { createEmbeddingModel } from './embedding-model.ts';
import {
  bagOfWordsEmbedding,
  type LoopbackEmbeddings,
  startLoopbackEmbeddings,
} from './testing/loopback-embeddings.ts';
import { decodeNormalizedInto, encodeVector } from './vectors.ts';

/** What the loopback "model" knows: these words mean the same thing. */
const SYNONYMS = {
  automobile: 'car',
  vehicle: 'car',
  auto: 'car',
  cars: 'car',
  upkeep: 'maintenance',
  servicing: 'maintenance',
  repair: 'maintenance',
};

function writeSite(dir: string, pages: Record<string, string>): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'docs.json'),
    JSON.stringify({
      name: 'Fixture',
      navigation: { groups: [{ group: 'All', pages: Object.keys(pages) }] },
    }),
  );
  for (const [page, body] of Object.entries(pages)) fs.writeFileSync(path.join(dir, `${page}.mdx`), body);
}

const page = (title: string, body: string) => `---\ntitle: ${title}\n---\n\n${body}\n`;

/** 40 pages of two chunks each: more chunks than one batch holds. */
function manyPages(changed?: string): Record<string, string> {
  const pages: Record<string, string> = {};
  for (let i = 0; i < 40; i++) {
    const word = i === 7 && changed ? changed : `topic${i}`;
    pages[`p${i}`] = page(`Page ${i}`, `About ${word} in general.\n\n## Details\n\nMore about ${word} here.`);
  }
  return pages;
}

const CAR_SITE = {
  'polling-interval': page(
    'Polling interval',
    'The polling interval sets how often the interval timer fires. Interval default is 30 seconds.',
  ),
  'retry-interval': page('Retry interval', 'Retries wait one interval between attempts.'),
  'car-maintenance': page('Car maintenance', 'Bring the car in for maintenance at each service interval.'),
  'vehicle-servicing': page(
    'Vehicle servicing',
    'Vehicle servicing keeps the vehicle safe on long trips across the country.',
  ),
  'auto-repair': page(
    'Auto repair',
    'Auto repair shops fix cars quickly and cheaply in most towns nearby, open late on weekdays.',
  ),
};
const CAR_QUERY = 'automobile upkeep interval';

async function countRows(storage: Storage, siteId: string, model?: string): Promise<number> {
  let query = storage.db
    .selectFrom('chunk_embeddings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('site_id', '=', siteId);
  if (model !== undefined) query = query.where('model', '=', model);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

async function countChunks(storage: Storage, siteId: string): Promise<number> {
  const row = await storage.db
    .selectFrom('chunks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('site_id', '=', siteId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(dialects)('semantic retrieval on %s', (dialect) => {
  let database: TestDatabase;
  let server: LoopbackEmbeddings;
  let organizationId: string;
  const dirs: string[] = [];

  const modelNamed = (name: string, maxRetries = 2) =>
    createEmbeddingModel(
      { provider: 'openai-compatible', model: name, apiKey: null, baseUrl: server.baseUrl },
      { maxRetries },
    );
  const newSite = async (domain: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-embeddings-'));
    dirs.push(dir);
    const site = await createSite(database.storage, { organizationId, domain });
    return { siteId: site.id, dir };
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    server = await startLoopbackEmbeddings({ synonyms: SYNONYMS });
    organizationId = (await createOrganization(database.storage, { name: 'o' })).id;
  });
  afterAll(async () => {
    await server.close();
    await database.drop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stores a vector per chunk at ingestion, in batches, and embeds again only what changed', async () => {
    const { storage } = database;
    const { siteId, dir } = await newSite('batches');
    const model = modelNamed('nomic-embed-text');
    server.mode = 'ok';
    writeSite(dir, manyPages());
    const from = server.requests.length;
    const first = await ingestSite(storage, siteId, dir, { embeddings: model });
    expect(first.warnings).toEqual([]);
    const chunks = await countChunks(storage, siteId);
    expect(chunks).toBeGreaterThan(EMBED_BATCH_SIZE);
    const requests = server.requests.slice(from);
    expect(requests.length).toBe(Math.ceil(chunks / EMBED_BATCH_SIZE));
    for (const request of requests) {
      expect(request.path).toBe('/v1/embeddings');
      expect(request.body.model).toBe('nomic-embed-text');
      expect(request.body.encoding_format).toBe('float');
      expect(Array.isArray(request.body.input)).toBe(true);
      expect((request.body.input as string[]).length).toBeLessThanOrEqual(EMBED_BATCH_SIZE);
    }
    const inputs = requests.flatMap((r) => r.body.input as string[]);
    expect(inputs.length).toBe(chunks);
    // Page title and headings go with the text.
    expect(inputs).toContain('Page 3 › Details\n\nMore about topic3 here.');
    expect(await countRows(storage, siteId, model.id)).toBe(chunks);

    // The bytes are the server's vector as little-endian float32.
    const row = await storage.db
      .selectFrom('chunk_embeddings')
      .selectAll()
      .where('site_id', '=', siteId)
      .where('page_path', '=', 'p3')
      .where('ord', '=', 1)
      .executeTakeFirstOrThrow();
    expect(row.model).toBe('openai-compatible:nomic-embed-text');
    expect(row.vector.byteLength).toBe(row.dimensions * 4);
    const stored = new Float32Array(row.dimensions);
    expect(decodeNormalizedInto(new Uint8Array(row.vector), stored, 0, row.dimensions)).toBe(true);
    const expected = bagOfWordsEmbedding('Page 3 › Details\n\nMore about topic3 here.', SYNONYMS);
    const norm = Math.hypot(...expected);
    expect([...stored].map((v) => Math.round(v * 1e5))).toEqual(
      expected.map((v) => Math.round((v / norm) * 1e5)),
    );

    // Unchanged: no request at all. One page changed: only its chunks.
    const again = server.requests.length;
    await ingestSite(storage, siteId, dir, { embeddings: model });
    expect(server.requests.length).toBe(again);
    writeSite(dir, manyPages('quinces'));
    const generation = await getIndexGeneration(storage, siteId);
    const changed = await ingestSite(storage, siteId, dir, { embeddings: model });
    expect(changed.counts.updated).toBe(1);
    const sent = server.requests.slice(again).flatMap((r) => r.body.input as string[]);
    expect(sent.length).toBe(2);
    expect(sent.every((text) => text.includes('quinces'))).toBe(true);
    expect(await countRows(storage, siteId, model.id)).toBe(chunks);
    // Pages written, then vectors written: two generations, so every process reloads both.
    expect(await getIndexGeneration(storage, siteId)).toBe((generation ?? 0) + 2);

    // Another model: every chunk again, and the old model's vectors dropped.
    const other = modelNamed('mxbai-embed-large');
    const before = server.requests.length;
    await ingestSite(storage, siteId, dir, { embeddings: other });
    expect(server.requests.slice(before).flatMap((r) => r.body.input as string[]).length).toBe(chunks);
    expect(await countRows(storage, siteId, other.id)).toBe(chunks);
    expect(await countRows(storage, siteId)).toBe(chunks);

    // Removing a page drops its vectors with its chunks.
    const fewer = manyPages('quinces');
    delete fewer.p0;
    writeSite(dir, fewer);
    await ingestSite(storage, siteId, dir, { embeddings: other });
    expect(await countRows(storage, siteId)).toBe(await countChunks(storage, siteId));
    expect(await countRows(storage, siteId)).toBe(chunks - 2);
  });

  it('the server’s background ingestions compute vectors with the model they are given', async () => {
    const { storage } = database;
    const { siteId, dir } = await newSite('runner');
    writeSite(dir, CAR_SITE);
    server.mode = 'ok';
    const model = modelNamed('nomic-embed-text');
    const runner = new IngestionRunner(undefined, null, null, model);
    const job = await runner.start(storage, siteId, dir);
    await runner.idle();
    expect((await getIngestionJob(storage, job.id))?.status).toBe('success');
    expect(await countRows(storage, siteId, model.id)).toBe(await countChunks(storage, siteId));
    expect(await countRows(storage, siteId)).toBeGreaterThan(0);
  });

  it('a failing embeddings server leaves a successful job with a warning, and search by words', async () => {
    const { storage } = database;
    const { siteId, dir } = await newSite('failing');
    writeSite(dir, CAR_SITE);
    server.mode = 'fail';
    const from = server.requests.length;
    // One retry here (the SDK's backoff is seconds); retries themselves are tested in embedding-model.test.ts.
    const model = modelNamed('nomic-embed-text', 1);
    const result = await ingestSite(storage, siteId, dir, { embeddings: model });
    server.mode = 'ok';
    expect(result.job.status).toBe('success');
    expect(result.counts.added).toBe(5);
    expect(server.requests.length - from).toBe(2);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]?.file).toBe('(embeddings)');
    expect(result.warnings[0]?.message).toMatch(
      /5 chunks have no openai-compatible:nomic-embed-text vector yet/,
    );
    expect(result.warnings[0]?.message).toMatch(/embeddings backend is down/);
    const job = await getIngestionJob(storage, result.job.id);
    expect(job?.status).toBe('success');
    expect(job?.warnings).toEqual(result.warnings);
    expect(await countRows(storage, siteId)).toBe(0);

    const lexical = await new SiteSearch(storage).search(siteId, CAR_QUERY, { limit: 5 });
    expect(lexical.length).toBeGreaterThan(0);
    // No vectors: the query is not even embedded, and the ranking is the lexical one.
    const before = server.requests.length;
    expect(
      await new SiteSearch(storage, { embeddings: model }).search(siteId, CAR_QUERY, { limit: 5 }),
    ).toEqual(lexical);
    expect(server.requests.length).toBe(before);

    // The next ingestion, with the server back, computes them.
    const retried = await ingestSite(storage, siteId, dir, { embeddings: model });
    expect(retried.warnings).toEqual([]);
    expect(await countRows(storage, siteId)).toBe(5);
  });

  it('a model whose dimensions changed under the same name gets every chunk recomputed', async () => {
    const { storage } = database;
    const { siteId, dir } = await newSite('dimensions');
    // No retries: the half-way run below fails at once.
    const model = modelNamed('same-name', 0);
    server.mode = 'ok';
    writeSite(dir, manyPages());
    await ingestSite(storage, siteId, dir, { embeddings: model });
    const chunks = await countChunks(storage, siteId);
    const dimensionsOf = async () =>
      (
        await storage.db
          .selectFrom('chunk_embeddings')
          .select('dimensions')
          .distinct()
          .where('site_id', '=', siteId)
          .execute()
      ).map((row) => row.dimensions);
    const shorter = (text: string) => bagOfWordsEmbedding(text, SYNONYMS).slice(0, 100);
    try {
      // Another model behind the name; one page changed. Every vector is recomputed, not only that page's.
      server.vectorOf = shorter;
      writeSite(dir, manyPages('quinces'));
      const from = server.requests.length;
      const changed = await ingestSite(storage, siteId, dir, { embeddings: model });
      expect(changed.warnings).toEqual([]);
      expect(server.inputs().length).toBeGreaterThan(0);
      expect(server.requests.slice(from).flatMap((r) => r.body.input as string[]).length).toBe(chunks);
      expect(await dimensionsOf()).toEqual([100]);
      expect(await countRows(storage, siteId, model.id)).toBe(chunks);

      // Queries answered in other dimensions than the stored vectors: words alone, said once.
      server.vectorOf = null;
      const warn = vi.fn();
      const search = new SiteSearch(storage, { embeddings: modelNamed('same-name', 0), logger: { warn } });
      const lexical = await new SiteSearch(storage).search(siteId, 'quinces details', { limit: 5 });
      expect(await search.search(siteId, 'quinces details', { limit: 5 })).toEqual(lexical);
      expect(await search.search(siteId, 'quinces details', { limit: 5 })).toEqual(lexical);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]?.[0]).toMatchObject({ queryDimensions: 256, storedDimensions: 100 });

      // Vectors of two sizes stored and no text changed since (a run that stopped half-way through
      // such a change, before this was handled): the next ingestion finds out and completes it.
      server.vectorOf = null;
      const one = await storage.db
        .selectFrom('chunk_embeddings')
        .select(['page_path', 'ord'])
        .where('site_id', '=', siteId)
        .orderBy('page_path')
        .orderBy('ord')
        .executeTakeFirstOrThrow();
      const vector = encodeVector(bagOfWordsEmbedding('something else', SYNONYMS));
      await storage.db
        .updateTable('chunk_embeddings')
        .set({ dimensions: vector.length / 4, vector: Buffer.from(vector) })
        .where('site_id', '=', siteId)
        .where('page_path', '=', one.page_path)
        .where('ord', '=', one.ord)
        .execute();
      expect((await dimensionsOf()).sort()).toEqual([100, 256]);
      server.vectorOf = null;
      server.mode = 'ok';
      const again = server.requests.length;
      const completed = await ingestSite(storage, siteId, dir, { embeddings: model });
      expect(completed.warnings).toEqual([]);
      expect(server.requests.length).toBeGreaterThan(again);
      expect(await dimensionsOf()).toEqual([256]);
      expect(await countRows(storage, siteId, model.id)).toBe(chunks);
      // Then an unchanged ingestion sends nothing again.
      const settled = server.requests.length;
      await ingestSite(storage, siteId, dir, { embeddings: model });
      expect(server.requests.length).toBe(settled);
    } finally {
      server.vectorOf = null;
    }
  });

  it('refuses vectors with no direction as 32-bit floats, so the next ingestion computes them', async () => {
    const { storage } = database;
    const { siteId, dir } = await newSite('float32');
    const model = modelNamed('float32', 0);
    writeSite(dir, CAR_SITE);
    server.mode = 'ok';
    const broken: Record<string, (text: string) => number[]> = {
      overflow: (text) => bagOfWordsEmbedding(text).map((v, i) => (i === 3 ? 1e39 : v)),
      underflow: (text) => bagOfWordsEmbedding(text).map((v) => v * 1e-50),
      zeros: () => new Array<number>(16).fill(0),
    };
    try {
      for (const vectorOf of Object.values(broken)) {
        server.vectorOf = vectorOf;
        const result = await ingestSite(storage, siteId, dir, { embeddings: model });
        expect(result.job.status).toBe('success');
        expect(result.warnings[0]?.message).toMatch(/no direction as 32-bit floats/);
        expect(await countRows(storage, siteId)).toBe(0);
      }
    } finally {
      server.vectorOf = null;
    }
    await ingestSite(storage, siteId, dir, { embeddings: model });
    expect(await countRows(storage, siteId)).toBe(5);
  });

  it('fuses the rankings: a chunk found by meaning comes first, across processes and timeouts', async () => {
    const { storage } = database;
    const { siteId, dir } = await newSite('cars');
    writeSite(dir, CAR_SITE);
    server.mode = 'ok';
    const model = modelNamed('nomic-embed-text');
    // Queries are not retried (embeddingModelsFor): a failure goes on by words at once.
    const queryModel = modelNamed('nomic-embed-text', 0);
    const warn = vi.fn();
    await ingestSite(storage, siteId, dir);
    const lexicalSearch = new SiteSearch(storage);
    const semanticSearch = new SiteSearch(storage, { embeddings: queryModel, logger: { warn } });

    const lexical = await lexicalSearch.search(siteId, CAR_QUERY, { limit: 5 });
    const lexicalRank = lexical.findIndex((r) => r.pagePath === 'car-maintenance');
    // Words alone put the car page behind both interval pages.
    expect(lexicalRank).toBeGreaterThanOrEqual(2);
    expect(await semanticSearch.search(siteId, CAR_QUERY, { limit: 5 })).toEqual(lexical);

    // Vectors written by another ingestion (no page changed) reach a search that had the site loaded.
    await ingestSite(storage, siteId, dir, { embeddings: model });
    const fused = await semanticSearch.search(
      siteId,
      CAR_QUERY,
      { limit: 5 },
      await siteRow(storage, siteId),
    );
    expect(fused[0]?.pagePath).toBe('car-maintenance');
    expect(fused[0]?.score).toBeLessThanOrEqual(1);
    // Its coverage is still the lexical one (one of the query's three words).
    expect(fused[0]?.coverage).toBe(lexical[lexicalRank]?.coverage);
    // Found by meaning only (no query word): in the results, with no coverage.
    const byMeaning = fused.find((r) => r.pagePath === 'vehicle-servicing');
    expect(byMeaning?.coverage).toBe(0);
    expect(lexical.some((r) => r.pagePath === 'vehicle-servicing')).toBe(false);
    expect(await lexicalSearch.search(siteId, CAR_QUERY, { limit: 5 })).toEqual(lexical);
    const request = server.requests.at(-1);
    expect(request?.body).toMatchObject({ model: 'nomic-embed-text', input: [CAR_QUERY] });

    // A version filter applies to chunks found by meaning too: none of these pages has that version
    // label, so unlabelled pages pass, as in the lexical ranking.
    expect(
      (await semanticSearch.search(siteId, CAR_QUERY, { limit: 5, version: 'v2' })).map((r) => r.pagePath),
    ).toEqual(fused.map((r) => r.pagePath));

    // A model that does not answer in time: words alone, logged once.
    server.mode = 'hang';
    const slow = new SiteSearch(storage, {
      embeddings: queryModel,
      logger: { warn },
      queryEmbeddingTimeoutMs: 150,
    });
    const started = performance.now();
    expect(await slow.search(siteId, CAR_QUERY, { limit: 5 })).toEqual(lexical);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await slow.search(siteId, CAR_QUERY, { limit: 5 })).toEqual(lexical);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[1]).toMatch(/searching by words alone/);
    server.mode = 'fail';
    const failing = server.requests.length;
    expect(await semanticSearch.search(siteId, CAR_QUERY, { limit: 5 })).toEqual(lexical);
    expect(server.requests.length - failing).toBe(1);
    server.mode = 'ok';
    expect((await slow.search(siteId, CAR_QUERY, { limit: 5 }))[0]?.pagePath).toBe('car-maintenance');
  });
});

async function siteRow(storage: Storage, siteId: string) {
  return storage.db
    .selectFrom('sites')
    .select(['index_generation', 'base_url', 'name'])
    .where('id', '=', siteId)
    .executeTakeFirstOrThrow();
}
