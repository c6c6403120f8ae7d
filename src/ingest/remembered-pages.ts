import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * What this process last read of each page of a docs folder: the page's content hash and, for every
 * file the hash covers (the page and the snippet files its imports reach), the file's stat. When a
 * re-ingestion finds every one of those files with the same stat, the same labels and the same stored
 * hash, the page is unchanged without reading it: an unchanged re-ingestion of a large site is mostly
 * reading and hashing every file (about 0.4 ms a file), and one `stat` a file is a fraction of that.
 *
 * Kept in memory, so it serves a server's re-ingestions (a webhook, a schedule, the console's button);
 * each CLI run starts empty and reads every file, as before. Never trusted blindly:
 * - a stat is remembered only when the file's modification and change times are at least
 *   `TRUST_MARGIN_MS` older than the moment its read began, so a file written while (or just before) it
 *   was read, or on a file system with coarse timestamps, is read again next time; the change time
 *   cannot be set back by a program, so restoring an old modification time does not hide an edit;
 * - size, modification time, change time and inode must all match (a symlink is compared by its target);
 * - the folder's list of Markdown files must be the one the pages were remembered with: an added or
 *   removed file can change what an import resolves to, so any addition or removal forgets the folder;
 * - the remembered hash must be the hash the site has stored for the page (another process or site
 *   having written something else means reading it).
 */

/** How much older than the read a file's times must be for its stat to vouch for its content. */
export const TRUST_MARGIN_MS = 2_000;
/** Pages remembered in all (about 200 bytes each): a few large sites, then the oldest folder goes. */
export const MAX_REMEMBERED_PAGES = 200_000;

export interface FileStat {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

interface RememberedPage {
  hash: string;
  /** The page's labels as the hash covers them. */
  labels: string;
  files: string[];
  stats: FileStat[];
}

interface Folder {
  fileListKey: string;
  pages: Map<string, RememberedPage>;
}

const statPath = promisify(fs.stat);
const folders = new Map<string, Folder>();
let remembered = 0;

const labelsOf = (versions: readonly string[], languages: readonly string[]): string =>
  JSON.stringify([versions, languages]);

/** A fingerprint of the folder's Markdown file list (the import resolver's view of the folder). */
export const fileListKey = (files: readonly string[]): string => {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file}\0`);
  return hash.digest('hex');
};

/** The stat of `rel` under `root` (following symlinks), or null when there is none. Never throws. */
export const statOf = async (root: string, rel: string): Promise<FileStat | null> => {
  try {
    const s = await statPath(path.join(root, rel));
    return { size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino };
  } catch {
    return null;
  }
};

const sameStat = (a: FileStat, b: FileStat): boolean =>
  a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;

/** The remembered pages of one docs folder (by its path and file list), for one ingestion's triage. */
export class RememberedPages {
  readonly #root: string;
  readonly #folder: Folder;
  /** Stats taken by this ingestion's checks: a snippet many pages import is stat'ed once. */
  readonly #checked = new Map<string, Promise<FileStat | null>>();

  constructor(root: string, files: readonly string[]) {
    this.#root = root;
    const key = fileListKey(files);
    let folder = folders.get(root);
    if (folder === undefined || folder.fileListKey !== key) {
      if (folder !== undefined) remembered -= folder.pages.size;
      folder = { fileListKey: key, pages: new Map() };
    }
    // Most recently used last, so the first folder is the one to forget.
    folders.delete(root);
    folders.set(root, folder);
    this.#folder = folder;
  }

  /**
   * The page's hash when it is `stored` and none of its files changed since it was remembered; null
   * when the page must be read.
   */
  async unchanged(
    id: string,
    stored: string,
    versions: readonly string[],
    languages: readonly string[],
  ): Promise<string | null> {
    const page = this.#folder.pages.get(id);
    if (page === undefined || page.hash !== stored || page.labels !== labelsOf(versions, languages))
      return null;
    const stats = await Promise.all(page.files.map((file) => this.#checkedStat(file)));
    for (const [i, stat] of stats.entries()) {
      const then = page.stats[i];
      if (stat === null || then === undefined || !sameStat(stat, then)) return null;
    }
    return page.hash;
  }

  #checkedStat(file: string): Promise<FileStat | null> {
    let stat = this.#checked.get(file);
    if (stat === undefined) {
      stat = statOf(this.#root, file);
      this.#checked.set(file, stat);
    }
    return stat;
  }

  /**
   * Remembers the page as read: `files` are every file its `hash` covers, and `readStartedAt` the time
   * (Date.now()) before the first of them was read. Forgets it instead when a file is too recent to vouch for.
   */
  async remember(
    id: string,
    hash: string,
    versions: readonly string[],
    languages: readonly string[],
    files: readonly string[],
    readStartedAt: number,
  ): Promise<void> {
    const stats = await Promise.all(files.map((file) => statOf(this.#root, file)));
    const pages = this.#folder.pages;
    const before = pages.size;
    const trusted = stats.every(
      (s) => s !== null && Math.max(s.mtimeMs, s.ctimeMs) < readStartedAt - TRUST_MARGIN_MS,
    );
    if (trusted)
      pages.set(id, {
        hash,
        labels: labelsOf(versions, languages),
        files: [...files],
        stats: stats as FileStat[],
      });
    else pages.delete(id);
    remembered += pages.size - before;
    while (remembered > MAX_REMEMBERED_PAGES) {
      const [oldest, folder] = folders.entries().next().value as [string, Folder];
      remembered -= folder.pages.size;
      if (folder === this.#folder) {
        // This folder alone is over the bound: it starts again rather than growing.
        folder.pages.clear();
        break;
      }
      folders.delete(oldest);
    }
  }
}

/** Pages remembered for a folder (tests). */
export const rememberedPageCount = (root: string): number => folders.get(root)?.pages.size ?? 0;

/** Forgets every folder (tests). */
export const forgetRememberedPages = (): void => {
  folders.clear();
  remembered = 0;
};
