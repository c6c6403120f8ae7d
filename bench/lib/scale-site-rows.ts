/**
 * A site's stored rows as search and answers read them, and the first place where two sites' rows
 * differ: how bench/lib/scale-copy-sites.ts proves that a site it wrote by copying rows holds exactly
 * what an ingestion of the same folder stores. Left out: ids (`site_id`, generated per database) and
 * `updated_at` (the time of the write).
 */
import type { Storage } from '../../src/storage/database.ts';

export const PAGE_COLUMNS = [
  'path',
  'title',
  'description',
  'versions',
  'languages',
  'content_hash',
  'nav_order',
  'nav_group',
] as const;

export const CHUNK_COLUMNS = ['page_path', 'ord', 'anchor', 'headings', 'text', 'analyzed'] as const;

type Value = string | number | null | Uint8Array;

export interface SiteRows {
  domain: string;
  site: { index_generation: number; repository_instructions: string | null };
  pages: Record<(typeof PAGE_COLUMNS)[number], Value>[];
  chunks: Record<(typeof CHUNK_COLUMNS)[number], Value>[];
  /** The stored search index of the site's current generation, part by part. */
  index: { generation: number; format: number; part: number; parts: number; data: Uint8Array }[];
}

export async function readSiteRows(storage: Storage, domain: string): Promise<SiteRows> {
  const site = await storage.db
    .selectFrom('sites')
    .select(['id', 'index_generation', 'repository_instructions'])
    .where('domain', '=', domain)
    .executeTakeFirst();
  if (!site) throw new Error(`no site ${domain} in ${storage.describe}`);
  const pages = await storage.db
    .selectFrom('pages')
    .select([...PAGE_COLUMNS])
    .where('site_id', '=', site.id)
    .orderBy('path')
    .execute();
  const chunks = await storage.db
    .selectFrom('chunks')
    .select([...CHUNK_COLUMNS])
    .where('site_id', '=', site.id)
    .orderBy('page_path')
    .orderBy('ord')
    .execute();
  const index = await storage.db
    .selectFrom('search_indexes')
    .select(['generation', 'format', 'part', 'parts', 'data'])
    .where('site_id', '=', site.id)
    .where('generation', '=', site.index_generation)
    .orderBy('part')
    .execute();
  return {
    domain,
    site: {
      index_generation: site.index_generation,
      repository_instructions: site.repository_instructions ?? null,
    },
    pages: pages.map((p) => ({ ...p, nav_order: p.nav_order ?? null, nav_group: p.nav_group ?? null })),
    chunks,
    index,
  };
}

const same = (a: Value | undefined, b: Value | undefined): boolean =>
  a instanceof Uint8Array && b instanceof Uint8Array ? Buffer.compare(a, b) === 0 : a === b;

const show = (value: Value | undefined): string => {
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/**
 * The first difference between the rows of a copied site and of the same site ingested, in words
 * (table, row, column and both values); null when every compared column of every row is the same.
 */
export function firstDifference(copied: SiteRows, ingested: SiteRows): string | null {
  const where = `${copied.domain}: copied vs ingested`;
  for (const column of ['index_generation', 'repository_instructions'] as const) {
    if (!same(copied.site[column], ingested.site[column]))
      return `${where}: sites.${column} ${show(copied.site[column])} vs ${show(ingested.site[column])}`;
  }
  const tables = [
    { name: 'pages', a: copied.pages, b: ingested.pages, key: (r: Record<string, Value>) => `${r.path}` },
    {
      name: 'chunks',
      a: copied.chunks,
      b: ingested.chunks,
      key: (r: Record<string, Value>) => `${r.page_path}#${r.ord}`,
    },
    {
      name: 'search_indexes',
      a: copied.index,
      b: ingested.index,
      key: (r: Record<string, Value>) => `part ${r.part}`,
    },
  ];
  for (const { name, a, b, key } of tables) {
    const rows = Math.max(a.length, b.length);
    for (let i = 0; i < rows; i++) {
      const x = a[i] as Record<string, Value> | undefined;
      const y = b[i] as Record<string, Value> | undefined;
      if (!x || !y)
        return `${where}: ${name} has ${a.length} rows copied and ${b.length} ingested; first unmatched row ${i}: ${key((x ?? y) as Record<string, Value>)}`;
      for (const column of Object.keys(y)) {
        if (!same(x[column], y[column]))
          return `${where}: ${name} row ${i} (${key(y)}), column ${column}: ${show(x[column])} vs ${show(y[column])}`;
      }
    }
  }
  return null;
}
