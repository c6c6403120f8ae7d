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
 * Hits read by one statement. Larger reads (a tool asking for many results) are split: the statements
 * are compiled once per number of hits, so this also bounds how many are kept.
 */
export const HITS_PER_READ = 64;

type HitParams = Record<string, string | number>;

const statements = new Map<number, Precompiled<HitParams, ChunkRow>>();

/**
 * The read of `n` hits, built and compiled once: on the request path, building and compiling the
 * query with Kysely cost several times what the database takes to run it.
 */
function hitsStatement(n: number): Precompiled<HitParams, ChunkRow> {
  let statement = statements.get(n);
  if (statement === undefined) {
    statement = precompile<HitParams, ChunkRow>((db, p) =>
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
    statements.set(n, statement);
  }
  return statement;
}

/** The stored text (and anchor, headings) of a search's hits, in one read per `HITS_PER_READ`. */
export async function readChunkRows(
  storage: Storage,
  siteId: string,
  keys: readonly { path: string; ord: number }[],
): Promise<ChunkRow[]> {
  const rows: ChunkRow[] = [];
  for (let from = 0; from < keys.length; from += HITS_PER_READ) {
    const slice = keys.slice(from, from + HITS_PER_READ);
    const params: HitParams = { siteId };
    slice.forEach(({ path, ord }, i) => {
      params[`p${i}`] = path;
      params[`o${i}`] = ord;
    });
    rows.push(
      ...(await executePrecompiled(storage.db, storage.dialect, hitsStatement(slice.length), params)),
    );
  }
  return rows;
}
