import type { Storage } from '../storage/database.ts';

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
  const page = await storage.db
    .selectFrom('pages')
    .select(['path', 'title', 'description', 'content_hash'])
    .where('site_id', '=', siteId)
    .where('path', '=', path)
    .executeTakeFirst();
  if (!page) return undefined;
  const chunks = await storage.db
    .selectFrom('chunks')
    .select(['anchor', 'headings', 'text'])
    .where('site_id', '=', siteId)
    .where('page_path', '=', path)
    .orderBy('ord')
    .execute();
  return {
    path: page.path,
    title: page.title,
    description: page.description,
    contentHash: page.content_hash,
    sections: chunks.map((c) => ({
      anchor: c.anchor,
      headings: JSON.parse(c.headings) as string[],
      text: c.text,
    })),
  };
}
