import { analyzeChunk } from '../search/analyze.ts';
import type { Storage } from '../storage/database.ts';

export interface SeedPage {
  path: string;
  title: string;
  chunks: string[];
  versions?: string[];
  languages?: string[];
}

/** Writes pages and chunks as an ingestion would (analysis stored), and moves the generation. */
export async function seedSite(storage: Storage, siteId: string, pages: SeedPage[]): Promise<void> {
  await storage.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('chunks').where('site_id', '=', siteId).execute();
    await trx.deleteFrom('pages').where('site_id', '=', siteId).execute();
    for (let i = 0; i < pages.length; i += 200) {
      const batch = pages.slice(i, i + 200);
      await trx
        .insertInto('pages')
        .values(
          batch.map((p) => ({
            site_id: siteId,
            path: p.path,
            title: p.title,
            description: null,
            versions: JSON.stringify(p.versions ?? []),
            languages: JSON.stringify(p.languages ?? []),
            content_hash: p.path,
            updated_at: new Date().toISOString(),
            nav_order: null,
            nav_group: null,
          })),
        )
        .execute();
      const rows = batch.flatMap((p) =>
        p.chunks.map((text, ord) => ({
          site_id: siteId,
          page_path: p.path,
          ord,
          anchor: ord === 0 ? null : `part-${ord}`,
          headings: JSON.stringify(ord === 0 ? [] : [`Part ${ord}`]),
          text,
          analyzed: JSON.stringify(
            analyzeChunk({
              pageTitle: p.title,
              headings: ord === 0 ? [] : [`Part ${ord}`],
              text,
              language: p.languages?.[0] ?? null,
            }),
          ),
        })),
      );
      for (let j = 0; j < rows.length; j += 100)
        await trx
          .insertInto('chunks')
          .values(rows.slice(j, j + 100))
          .execute();
    }
    await trx
      .updateTable('sites')
      .set((eb) => ({ index_generation: eb('index_generation', '+', 1) }))
      .where('id', '=', siteId)
      .execute();
  });
}
