/**
 * Loading a site's concept model (question-concepts.ts) from its stored search index: the bytes the
 * search stores for the site's current index generation, decoded, reduced to the model and let go.
 */
import { decodeIndex } from '../search/index-codec.ts';
import { readStoredIndex } from '../search/stored-index.ts';
import type { Storage } from '../storage/database.ts';
import { type ConceptModel, conceptModelFromIndex } from './question-concepts.ts';

/** The site's index generation, or null for a site that is gone. */
export async function indexGenerationOf(storage: Storage, siteId: string): Promise<number | null> {
  const site = await storage.db
    .selectFrom('sites')
    .select('index_generation')
    .where('id', '=', siteId)
    .executeTakeFirst();
  return site === undefined ? null : site.index_generation;
}

/**
 * The concept model of the site's stored index for `generation` (its current one when omitted); null
 * when there is none usable yet (no search has built one since the last ingestion): the grouping then
 * goes by words alone.
 */
export async function loadConceptModel(
  storage: Storage,
  siteId: string,
  options: { generation?: number | undefined; dimsPerTerm?: number | undefined } = {},
): Promise<ConceptModel | null> {
  const generation = options.generation ?? (await indexGenerationOf(storage, siteId));
  if (generation === null) return null;
  const stored = await readStoredIndex(storage, siteId, generation);
  if (!('bytes' in stored)) return null;
  const build: { dimsPerTerm?: number } = {};
  if (options.dimsPerTerm !== undefined) build.dimsPerTerm = options.dimsPerTerm;
  return conceptModelFromIndex(decodeIndex(stored.bytes), build);
}
