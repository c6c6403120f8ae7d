import type { Kysely } from 'kysely';
import type { Storage } from '../storage/database.ts';
import type { Database } from '../storage/schema.ts';

/** A stored page as ingested: its sections in order (chunks of one long section share their heading). */
export interface StoredPage {
  path: string;
  title: string;
  description: string | null;
  contentHash: string;
  sections: { anchor: string | null; headings: string[]; text: string }[];
}

export async function readStoredPage(
  storage: Storage,
  siteId: string,
  path: string,
): Promise<StoredPage | undefined> {
  return (await readStoredPages(storage.db, siteId, [path])).get(path);
}

/**
 * The stored pages among `paths`, by path; paths without a page are absent. Two queries whatever the
 * number of paths, so keep the list short enough for one statement's parameters (a few hundred). `db`
 * may be a transaction, to read many batches from one snapshot.
 */
export async function readStoredPages(
  db: Kysely<Database>,
  siteId: string,
  paths: readonly string[],
): Promise<Map<string, StoredPage>> {
  const pages = new Map<string, StoredPage>();
  if (paths.length === 0) return pages;
  const rows = await db
    .selectFrom('pages')
    .select(['path', 'title', 'description', 'content_hash'])
    .where('site_id', '=', siteId)
    .where('path', 'in', paths)
    .execute();
  for (const row of rows) {
    pages.set(row.path, {
      path: row.path,
      title: row.title,
      description: row.description,
      contentHash: row.content_hash,
      sections: [],
    });
  }
  const chunks = await db
    .selectFrom('chunks')
    .select(['page_path', 'anchor', 'headings', 'text'])
    .where('site_id', '=', siteId)
    .where('page_path', 'in', paths)
    .orderBy('page_path')
    .orderBy('ord')
    .execute();
  for (const chunk of chunks) {
    pages.get(chunk.page_path)?.sections.push({
      anchor: chunk.anchor,
      headings: JSON.parse(chunk.headings) as string[],
      text: chunk.text,
    });
  }
  return pages;
}
