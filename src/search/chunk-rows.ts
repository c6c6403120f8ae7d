import { sql } from 'kysely';
import type { Storage } from '../storage/database.ts';
import { executePrecompiled, type Precompiled, precompile } from '../storage/precompiled.ts';

/** The stored text of one chunk, as a search's results show it. */
export interface ChunkRow {
  page_path: string;
  ord: number;
  anchor: string | null;
  headings: string;
  text: string;
}

/**
 * Numbers of hits whose statement is kept compiled (a search's page of results); a larger read (a tool
 * asking for many results) compiles its own. Either way the hits are read by one statement: two reads
 * could straddle an ingestion's commit and mix two versions of the site.
 */
export const CACHED_HIT_COUNTS = 64;

type HitParams = Record<string, string | number>;

const statements = new Map<number, Precompiled<HitParams, ChunkRow>>();

/**
 * The read of `n` hits, built and compiled once per number up to `CACHED_HIT_COUNTS`: on the request
 * path, building and compiling the query with Kysely cost several times what the database takes to run it.
 */
function hitsStatement(n: number): Precompiled<HitParams, ChunkRow> {
  if (n > CACHED_HIT_COUNTS) return buildHitsStatement(n);
  let statement = statements.get(n);
  if (statement === undefined) {
    statement = buildHitsStatement(n);
    statements.set(n, statement);
  }
  return statement;
}

const buildHitsStatement = (n: number): Precompiled<HitParams, ChunkRow> =>
  precompile<HitParams, ChunkRow>((db, p) =>
    db
      .selectFrom('chunks')
      .select(['page_path', 'ord', 'anchor', 'headings', 'text'])
      .where('site_id', '=', p('siteId') as string)
      // A row-value IN over VALUES: both dialects look each pair up in the primary key (an OR of
      // pairs made SQLite scan the site's chunks). Cast, as PostgreSQL types bare VALUES parameters text.
      .where(
        sql<boolean>`(page_path, ord) in (values ${sql.join(
          Array.from(
            { length: n },
            (_, i) => sql`(cast(${p(`p${i}`)} as text), cast(${p(`o${i}`)} as integer))`,
          ),
        )})`,
      ),
  );

/** The stored text (and anchor, headings) of a search's hits, in one read. */
export async function readChunkRows(
  storage: Storage,
  siteId: string,
  keys: readonly { path: string; ord: number }[],
): Promise<ChunkRow[]> {
  if (keys.length === 0) return [];
  const params: HitParams = { siteId };
  keys.forEach(({ path, ord }, i) => {
    params[`p${i}`] = path;
    params[`o${i}`] = ord;
  });
  return executePrecompiled(storage.db, storage.dialect, hitsStatement(keys.length), params);
}
