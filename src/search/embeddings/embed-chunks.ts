import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import { mapLimit } from '../../ingest/map-limit.ts';
import type { Storage } from '../../storage/database.ts';
import type { Database } from '../../storage/schema.ts';
import type { EmbeddingModel } from './embedding-model.ts';
import { encodeVector, normalized } from './vectors.ts';

/** Chunks per embeddings request (OpenAI takes up to 2048; small batches keep one failure cheap). */
export const EMBED_BATCH_SIZE = 64;
/** Embeddings requests in flight at once during an ingestion. */
export const EMBED_CONCURRENCY = 2;
/** Longest one batch (retries included) may take before the step gives up. */
export const EMBED_BATCH_TIMEOUT_MS = 120_000;
/**
 * Characters of a chunk sent to the model. Models have input limits (8,191 tokens for OpenAI's, 2,048
 * or 8,192 for common Ollama ones); chunks are rarely this long, and the start of a section says what
 * it is about.
 */
export const MAX_EMBED_INPUT_CHARS = 6_000;
/** Keys per `IN (…)`-style read or multi-row write: far below both dialects' bound-parameter limits. */
const ROWS_PER_STATEMENT = 200;

export interface EmbedChunksResult {
  /** Chunks whose vectors were computed now. */
  embedded: number;
  /** Chunks that already had a vector of this model for their text. */
  reused: number;
  /** Chunks left without a vector (the step stopped at its first failed batch). */
  missing: number;
  /** Why the step stopped; null when every chunk has its vector. */
  error: string | null;
}

interface ChunkText {
  pagePath: string;
  ord: number;
  input: string;
  hash: string;
}

/**
 * What is embedded for a chunk: its page title and headings carry what a section is about when its
 * text does not say it again.
 */
export function embeddingInput(pageTitle: string, headings: readonly string[], text: string): string {
  const input = [[pageTitle, ...headings].join(' › '), text].join('\n\n');
  return input.length > MAX_EMBED_INPUT_CHARS ? input.slice(0, MAX_EMBED_INPUT_CHARS) : input;
}

const hashOf = (input: string): string => createHash('sha256').update(input).digest('base64url');

async function chunkTexts(
  db: Storage['db'] | Transaction<Database>,
  siteId: string,
  pagePaths?: readonly string[],
): Promise<ChunkText[]> {
  let query = db
    .selectFrom('chunks')
    .innerJoin('pages', (join) =>
      join.onRef('pages.site_id', '=', 'chunks.site_id').onRef('pages.path', '=', 'chunks.page_path'),
    )
    .select(['chunks.page_path', 'chunks.ord', 'chunks.headings', 'chunks.text', 'pages.title'])
    .where('chunks.site_id', '=', siteId);
  if (pagePaths !== undefined) query = query.where('chunks.page_path', 'in', pagePaths);
  const rows = await query.orderBy('chunks.page_path').orderBy('chunks.ord').execute();
  return rows.map((row) => {
    const input = embeddingInput(row.title, JSON.parse(row.headings) as string[], row.text);
    return { pagePath: row.page_path, ord: row.ord, input, hash: hashOf(input) };
  });
}

const keyOf = (pagePath: string, ord: number): string => `${ord}\u0000${pagePath}`;

/**
 * Computes the vectors a site's chunks lack under `model`, after an ingestion has written its pages:
 * a chunk keeps its vector while its text is the same (a changed page's chunks are rewritten, which
 * drops their vectors), and vectors of another model are dropped. Requests go in batches of
 * `EMBED_BATCH_SIZE`, `EMBED_CONCURRENCY` at a time, each retried by the AI SDK; each batch is
 * written as it arrives, so a failure keeps what was done and the next ingestion does the rest.
 *
 * Never throws: a failure is returned in `error`, and the site's lexical index is untouched by it.
 * The index generation moves once vectors were written or dropped, so every process reloads them.
 */
export async function embedSiteChunks(
  storage: Storage,
  siteId: string,
  model: EmbeddingModel,
): Promise<EmbedChunksResult> {
  let changed = false;
  let embedded = 0;
  let pending = 0;
  let error: string | null = null;
  let reused = 0;
  try {
    const dropped = await storage.db
      .deleteFrom('chunk_embeddings')
      .where('site_id', '=', siteId)
      .where('model', '<>', model.id)
      .executeTakeFirst();
    if (Number(dropped.numDeletedRows) > 0) changed = true;

    const chunks = await chunkTexts(storage.db, siteId);
    let dimensions: number | null = null;
    // Two passes at most: a model served under the same name may have changed its dimensions (another
    // model behind an Ollama tag or a gateway's alias). The first pass's vectors say what they are now,
    // so vectors of other dimensions are dropped and computed again in a second pass; otherwise they
    // would stay, unusable beside the new ones, for as long as their text does not change.
    for (let pass = 0; pass < 2 && error === null; pass++) {
      const stored = new Map<string, string>();
      const storedDimensions = new Set<number>();
      const rows = await storage.db
        .selectFrom('chunk_embeddings')
        .select(['page_path', 'ord', 'text_hash', 'dimensions'])
        .where('site_id', '=', siteId)
        .where('model', '=', model.id)
        .execute();
      for (const row of rows) {
        stored.set(keyOf(row.page_path, row.ord), row.text_hash);
        storedDimensions.add(row.dimensions);
      }
      const todo = chunks.filter((chunk) => stored.get(keyOf(chunk.pagePath, chunk.ord)) !== chunk.hash);
      // Vectors of several dimensions and nothing to embed (an earlier run stopped half-way through a
      // change of dimensions): one chunk again tells which dimensions are the model's now.
      const probe = chunks[0];
      if (pass === 0 && todo.length === 0 && storedDimensions.size > 1 && probe !== undefined)
        todo.push(probe);
      if (pass === 0) reused = chunks.length - todo.length;
      pending = todo.length;

      const batches: ChunkText[][] = [];
      for (let i = 0; i < todo.length; i += EMBED_BATCH_SIZE)
        batches.push(todo.slice(i, i + EMBED_BATCH_SIZE));
      // One failed batch stops the rest: the provider is down or refusing, and more calls only cost.
      const stop = new AbortController();
      await mapLimit(batches, EMBED_CONCURRENCY, async (batch) => {
        if (stop.signal.aborted) return;
        try {
          const vectors = await model.embed(
            batch.map((chunk) => chunk.input),
            AbortSignal.any([stop.signal, AbortSignal.timeout(EMBED_BATCH_TIMEOUT_MS)]),
          );
          dimensions ??= vectors[0]?.length ?? null;
          checkVectors(vectors, batch.length, dimensions);
          const written = await writeBatch(storage, siteId, model.id, batch, vectors);
          if (written > 0) changed = true;
          embedded += written;
          pending -= batch.length;
        } catch (failure) {
          if (!stop.signal.aborted) {
            error = failure instanceof Error ? failure.message : String(failure);
            stop.abort();
          }
        }
      });
      if (error !== null || dimensions === null) break;
      const stale = await storage.db
        .deleteFrom('chunk_embeddings')
        .where('site_id', '=', siteId)
        .where('model', '=', model.id)
        .where('dimensions', '<>', dimensions)
        .executeTakeFirst();
      if (Number(stale.numDeletedRows) === 0) break;
      changed = true;
      reused -= Number(stale.numDeletedRows);
    }
  } catch (failure) {
    error ??= failure instanceof Error ? failure.message : String(failure);
  }
  if (changed) {
    try {
      await storage.db
        .updateTable('sites')
        .set((eb) => ({ index_generation: eb('index_generation', '+', 1) }))
        .where('id', '=', siteId)
        .execute();
    } catch (failure) {
      error ??= failure instanceof Error ? failure.message : String(failure);
    }
  }
  return { embedded, reused, missing: error === null ? 0 : pending, error };
}

function checkVectors(vectors: number[][], expected: number, dimensions: number | null): void {
  if (vectors.length !== expected)
    throw new Error(`the embeddings model returned ${vectors.length} vectors for ${expected} texts`);
  for (const vector of vectors) {
    if (dimensions === null || dimensions === 0 || vector.length !== dimensions)
      throw new Error(
        `the embeddings model returned vectors of ${vector.length} and ${dimensions} dimensions`,
      );
    if (!vector.every(Number.isFinite)) throw new Error('the embeddings model returned a non-finite number');
    // Stored as 32-bit floats: a number past their range is stored as infinity, and a vector of only
    // zeros (or of numbers too small for them) has no direction. Such a vector would be stored, never
    // used by a search (vectors.ts leaves it out) and never computed again while its text stays the same.
    if (normalized(vector) === null)
      throw new Error(
        'the embeddings model returned a vector that has no direction as 32-bit floats (all zeros, or numbers out of their range)',
      );
  }
}

/**
 * Writes a batch's vectors for the chunks whose text is still the one embedded: another ingestion
 * may have rewritten a page while the batch was computed, and its new chunks must not get old vectors.
 */
async function writeBatch(
  storage: Storage,
  siteId: string,
  modelId: string,
  batch: readonly ChunkText[],
  vectors: readonly number[][],
): Promise<number> {
  return storage.db.transaction().execute(async (trx) => {
    if (storage.dialect === 'postgres') {
      // Serialised with ingestions' writes of the site (ingest-site.ts takes the same lock).
      await trx.selectFrom('sites').select('id').where('id', '=', siteId).forUpdate().execute();
    }
    const current = new Map<string, string>();
    const paths = [...new Set(batch.map((chunk) => chunk.pagePath))];
    for (let i = 0; i < paths.length; i += ROWS_PER_STATEMENT) {
      for (const chunk of await chunkTexts(trx, siteId, paths.slice(i, i + ROWS_PER_STATEMENT)))
        current.set(keyOf(chunk.pagePath, chunk.ord), chunk.hash);
    }
    const values = batch.flatMap((chunk, i) => {
      const vector = vectors[i];
      if (vector === undefined || current.get(keyOf(chunk.pagePath, chunk.ord)) !== chunk.hash) return [];
      const bytes = encodeVector(vector);
      return [
        {
          site_id: siteId,
          page_path: chunk.pagePath,
          ord: chunk.ord,
          model: modelId,
          text_hash: chunk.hash,
          dimensions: vector.length,
          // better-sqlite3 binds Buffers (not plain Uint8Arrays) as blobs; pg sends them as bytea.
          vector: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        },
      ];
    });
    for (let i = 0; i < values.length; i += ROWS_PER_STATEMENT) {
      await trx
        .insertInto('chunk_embeddings')
        .values(values.slice(i, i + ROWS_PER_STATEMENT))
        .onConflict((oc) =>
          oc.columns(['site_id', 'page_path', 'ord', 'model']).doUpdateSet((eb) => ({
            text_hash: eb.ref('excluded.text_hash'),
            dimensions: eb.ref('excluded.dimensions'),
            vector: eb.ref('excluded.vector'),
          })),
        )
        .execute();
    }
    return values.length;
  });
}
