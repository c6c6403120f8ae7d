import { createHash } from 'node:crypto';
import type { Storage } from '../storage/database.ts';
import type { ContainedFolder, FileStamp } from './contained-file.ts';
import { contentHash, fieldHasher, type HashSubject } from './content-hash.ts';
import { STORED_HASH_PREFIX } from './page-staging.ts';
import type { PageStamp } from './types.ts';

/**
 * Source stamps: how an unchanged re-ingestion knows a page is unchanged without reading it, as git's
 * index does for `git status`. A page's stamp covers everything its content hash covers (content-hash.ts),
 * with each file's `FileStamp` (device, inode, size, times) in place of its text, plus the list of every
 * Markdown file of the folder (an added or removed file can change which file an import reaches). Equal
 * stamps therefore mean an equal content hash, and the page is reused after one `stat` per file instead of
 * reading, scanning and hashing its source and snippets.
 *
 * A stamp is recorded only from files read through `ContainedFolder.readText` (its stamp is taken before
 * the read, and none is given for a file modified in the last `RACY_MS`), and only with the content hash
 * computed from those same reads; it is used only while that hash is still the page's stored one. Pages
 * whose content is not only files (OpenAPI operations) get none and are checked as before.
 */

/** What the stamp of a page is made of, besides its files' stamps. */
export interface StampSubject extends HashSubject {
  /** The page's own file: the navigation may give a page id another file (a moved `docs_dir`). */
  file: string;
  /** `folderDigest` of the folder's Markdown files. */
  folder: string;
}

/** One hash of every Markdown file's path in the folder (sorted, as listDocsFiles gives them). */
export const folderDigest = (files: readonly string[]): string => {
  const hash = createHash('sha256');
  const field = fieldHasher(hash);
  for (const file of files) field(file);
  return hash.digest('hex');
};

/**
 * The stamp of a page read now (`files`: its own file first, then its snippets): null unless every file
 * had a stamp (none was modified just before). It is the page's content hash taken over its files'
 * stamps instead of their text, so it covers whatever that hash covers.
 */
export const pageStamp = (
  subject: StampSubject,
  files: readonly { file: string; stamp: FileStamp | null }[],
): PageStamp | null => {
  const [own, ...snippets] = files;
  if (own?.stamp == null) return null;
  const stamps: { file: string; source: string }[] = [];
  for (const { file, stamp } of snippets) {
    if (stamp === null) return null;
    stamps.push({ file, source: stamp });
  }
  const hash = createHash('sha256');
  const field = fieldHasher(hash);
  field(contentHash({ ...subject, source: own.stamp, snippets: stamps }));
  field(subject.file);
  field(subject.folder);
  return { stamp: hash.digest('hex'), files: files.map((f) => f.file) };
};

/** File stamps taken in one load, by file: a snippet that hundreds of pages import is stat once. */
export type FileStampCache = Map<string, Promise<FileStamp | null>>;

/** The stamp the page's stored files give now, by one `stat` each: equal to the stored one if unchanged. */
export const currentStamp = async (
  folder: ContainedFolder,
  subject: StampSubject,
  files: readonly string[],
  cache: FileStampCache,
): Promise<PageStamp | null> => {
  const stampOf = (file: string): Promise<FileStamp | null> => {
    let stamp = cache.get(file);
    if (stamp === undefined) {
      stamp = folder.stampOf(file);
      cache.set(file, stamp);
    }
    return stamp;
  };
  const stamps = await Promise.all(files.map(stampOf));
  return pageStamp(
    subject,
    files.map((file, i) => ({ file, stamp: stamps[i] ?? null })),
  );
};

/** A stored stamp, with the stored content hash it vouches for. */
export interface StoredStamp extends PageStamp {
  hash: string;
}

/**
 * The site's stored stamps that vouch for the content hash the caller holds for their page (`known`, by
 * page id, as the loader reads it): a stamp recorded with another hash is left out, since another
 * ingestion has changed the page since.
 */
export async function readPageStamps(
  storage: Storage,
  siteId: string,
  known: Readonly<Record<string, string>>,
): Promise<Map<string, StoredStamp>> {
  // A hint: should the read fail, every page is read as before.
  const rows = await storage.db
    .selectFrom('page_stamps')
    .select(['path', 'stamp', 'files', 'content_hash'])
    .where('site_id', '=', siteId)
    .execute()
    .catch(() => []);
  const stamps = new Map<string, StoredStamp>();
  for (const row of rows) {
    const hash = known[row.path];
    if (hash === undefined || row.content_hash !== `${STORED_HASH_PREFIX}${hash}`) continue;
    const files = parsedFiles(row.files);
    if (files !== null) stamps.set(row.path, { stamp: row.stamp, files, hash: row.content_hash });
  }
  return stamps;
}

const parsedFiles = (json: string): string[] | null => {
  try {
    const files: unknown = JSON.parse(json);
    return Array.isArray(files) && files.length > 0 && files.every((f) => typeof f === 'string')
      ? files
      : null;
  } catch {
    return null;
  }
};

/** Rows per upsert: 5 columns × 500 stays far below both dialects' bound-parameter limits. */
const WRITE_BATCH = 500;

/**
 * Stores the stamps of an ingestion's pages that differ from the stored ones (`stamped`: by page id,
 * with the stored content hash each vouches for), and, when the site's pages changed (`siteChanged`),
 * drops the stamps that vouch for no stored page any more (a page removed, or stored since under a hash
 * no stamp was taken for). A stamp is a hint, never data: writing it after the pages are published,
 * outside their transaction, loses nothing if it fails (the next ingestion reads those pages again).
 */
export async function writePageStamps(
  storage: Storage,
  siteId: string,
  stamped: ReadonlyMap<string, StoredStamp>,
  stored: ReadonlyMap<string, StoredStamp>,
  siteChanged: boolean,
): Promise<void> {
  const rows = [...stamped]
    .filter(([path, s]) => {
      const before = stored.get(path);
      return before?.stamp !== s.stamp || before.hash !== s.hash;
    })
    .map(([path, s]) => ({
      site_id: siteId,
      path,
      content_hash: s.hash,
      stamp: s.stamp,
      files: JSON.stringify(s.files),
    }));
  if (rows.length === 0 && !siteChanged) return;
  await storage.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += WRITE_BATCH)
      await trx
        .insertInto('page_stamps')
        .values(rows.slice(i, i + WRITE_BATCH))
        .onConflict((oc) =>
          oc.columns(['site_id', 'path']).doUpdateSet((eb) => ({
            content_hash: eb.ref('excluded.content_hash'),
            stamp: eb.ref('excluded.stamp'),
            files: eb.ref('excluded.files'),
          })),
        )
        .execute();
    if (siteChanged)
      await trx
        .deleteFrom('page_stamps')
        .where('site_id', '=', siteId)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('pages')
                .select('pages.path')
                .whereRef('pages.site_id', '=', 'page_stamps.site_id')
                .whereRef('pages.path', '=', 'page_stamps.path')
                .whereRef('pages.content_hash', '=', 'page_stamps.content_hash'),
            ),
          ),
        )
        .execute();
  });
}
