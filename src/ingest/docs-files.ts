import type { Dirent } from 'node:fs';
import { constants, type FileHandle, lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isInsideRoot, procFdPath } from './contained-file.ts';
import {
  DocsFolderLimitError,
  MAX_DOCS_FOLDER_DEPTH,
  MAX_DOCS_FOLDER_ENTRIES,
  MAX_DOCS_PAGE_FILES,
  MAX_DOCS_TOTAL_BYTES,
} from './ingest-limits.ts';

/** Folders that never hold pages: dependencies, build output, VCS and tool dot-folders. */
const IGNORED_DIRS = new Set(['node_modules']);

export interface DocsFiles {
  /** Every .md/.mdx file, relative to the root with `/` separators, sorted. */
  files: string[];
  /** Page id (path without extension) → relative file; `.mdx` wins over `.md` like Mintlify does. */
  byPageId: Map<string, string>;
  /** Directories that could not be read or were not followed (relative paths), for warnings. */
  unreadable: string[];
  /** Why each symlinked folder in `unreadable` was not followed (never naming its target). */
  refused: Map<string, string>;
}

export const SYMLINKED_FOLDER_REASON = 'symbolic link to a folder; not followed';
export const TOO_DEEP_REASON = `nested deeper than ${MAX_DOCS_FOLDER_DEPTH} folders; not read`;

const STAT_BATCH = 256;

export const pageIdOf = (file: string): string => file.replace(/\.(mdx|md)$/i, '');

export const isPageFile = (name: string): boolean => /\.(mdx|md)$/i.test(name);

/**
 * Why a page file's name cannot name a page, or null: a control character (a newline in a page path,
 * an escape sequence in every listing that shows it), or a name whose page would be `.` or `..`.
 */
export const pageNameProblem = (name: string): string | null => {
  if (CONTROL.test(name)) return 'file name holds control characters; not read';
  const id = pageIdOf(name);
  if (id === '' || id === '.' || id === '..') return `file name makes the page path "${id}"; not read`;
  return null;
};

const CONTROL = /\p{Cc}/u;

/**
 * Lists the docs folder once; the loader answers "does this nav page exist?" from the result.
 *
 * Symlinked folders are never descended, wherever they point: one leaving the folder would list (and let
 * the navigation and snippets reach) another tree, and even inside it a few links make cycles or a listing
 * that doubles at every level. Every other non-folder entry with a page name is listed, symlinks and
 * special files included: reading goes through contained-file.ts, which refuses what leaves the folder or
 * is not a regular file with a warning naming the entry.
 */
/** Folders one listing holds open at a time. */
const MAX_OPEN_FOLDERS = 16;

/** At most `limit` calls of `run` in progress; the others wait their turn, in order. */
class Limiter {
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#active >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#active++;
    try {
      return await fn();
    } finally {
      this.#active--;
      this.#waiting.shift()?.();
    }
  }
}

/**
 * A folder's entries, read through a handle on the folder opened without following a link and checked
 * to be inside the root (Linux's /proc/self/fd names the folder opened): a subfolder swapped for a link
 * after its parent was listed led the walk into another folder, whose file names then showed in the
 * ingestion's warnings. Where /proc is missing, the path is read (the page reads are checked anyway).
 */
const readFolder = async (root: string, realRoot: Promise<string>, rel: string): Promise<Dirent[]> => {
  const folder = path.join(root, rel);
  let handle: FileHandle;
  try {
    // The root as given (a pinned handle's /proc/self/fd path is itself a link); below it, no link.
    const noFollow = rel === '' ? 0 : constants.O_NOFOLLOW;
    handle = await open(folder, constants.O_RDONLY | constants.O_DIRECTORY | noFollow);
  } catch (error) {
    // No O_DIRECTORY here (not Linux): the path, as before.
    if ((error as NodeJS.ErrnoException).code === 'EINVAL') return readdir(folder, { withFileTypes: true });
    throw error;
  }
  try {
    const where = await procFdPath(handle.fd);
    if (where === null) return await readdir(folder, { withFileTypes: true });
    if (!path.isAbsolute(where) || !isInsideRoot(await realRoot, where))
      throw new Error('folder leads outside the docs folder');
    return await readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true });
  } finally {
    await handle.close();
  }
};

export const listDocsFiles = async (
  root: string,
  /** MAX_DOCS_FOLDER_ENTRIES; smaller only in tests, where two hundred thousand files take minutes. */
  maxEntries = MAX_DOCS_FOLDER_ENTRIES,
): Promise<DocsFiles> => {
  const files: string[] = [];
  const unreadable: string[] = [];
  const refused = new Map<string, string>();
  let visited = 0;
  let realRoot: Promise<string> | undefined;
  // The walk goes down every subfolder at once; only this many hold a handle on their folder at a time
  // (unbounded, a folder of 20,000 subfolders used up the process's descriptors, and every other
  // organization's work failed with EMFILE meanwhile).
  const openFolders = new Limiter(MAX_OPEN_FOLDERS);
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > MAX_DOCS_FOLDER_DEPTH) {
      unreadable.push(rel);
      refused.set(rel, TOO_DEEP_REASON);
      return;
    }
    let entries: Dirent[];
    try {
      // Resolved once; never left rejected and unread (a root that cannot be resolved contains nothing).
      realRoot ??= realpath(root).catch(() => '\0');
      const resolved = realRoot;
      entries = await openFolders.run(() => readFolder(root, resolved, rel));
    } catch {
      unreadable.push(rel || '.');
      return;
    }
    visited += entries.length;
    if (visited > maxEntries)
      throw new DocsFolderLimitError(
        `docs folder has more than ${maxEntries} entries (MAX_DOCS_FOLDER_ENTRIES); nothing ingested`,
      );
    const subdirs: string[] = [];
    const links: string[] = [];
    for (const entry of entries) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name.startsWith('.') || IGNORED_DIRS.has(entry.name)) continue;
        // Its name would be in every page path under it.
        if (CONTROL.test(entry.name)) {
          unreadable.push(childRel);
          refused.set(childRel, 'folder name holds control characters; not read');
          continue;
        }
        subdirs.push(childRel);
      } else if (isPageFile(entry.name)) {
        const problem = pageNameProblem(entry.name);
        if (problem === null) files.push(childRel);
        else {
          unreadable.push(childRel);
          refused.set(childRel, problem);
        }
      } else if (entry.isSymbolicLink() && !entry.name.startsWith('.') && !CONTROL.test(entry.name)) {
        // A link is named in a warning only when it leads to a folder: never with control characters.
        links.push(childRel);
      }
    }
    if (files.length > MAX_DOCS_PAGE_FILES)
      throw new DocsFolderLimitError(
        `docs folder has more than ${MAX_DOCS_PAGE_FILES} .md/.mdx files (MAX_DOCS_PAGE_FILES); nothing ingested`,
      );
    // Only to say which links are folders left out; a link to anything else is no page and is ignored.
    const linkedFolders = await Promise.all(
      links.map((link) =>
        stat(path.join(root, link)).then(
          (info) => info.isDirectory(),
          () => false,
        ),
      ),
    );
    links.forEach((link, i) => {
      if (!linkedFolders[i]) return;
      unreadable.push(link);
      refused.set(link, SYMLINKED_FOLDER_REASON);
    });
    await Promise.all(subdirs.map((subdir) => walk(subdir, depth + 1)));
  };
  await walk('', 0);
  await checkTotalBytes(root, files);
  files.sort(comparePaths);
  const byPageId = new Map<string, string>();
  for (const file of files) {
    const id = pageIdOf(file);
    const existing = byPageId.get(id);
    if (!existing || (existing.endsWith('.md') && file.endsWith('.mdx'))) byPageId.set(id, file);
  }
  unreadable.sort(comparePaths);
  return { files, byPageId, unreadable, refused };
};

/**
 * Sizes from lstat: a link counts as the link itself, since reading one is refused unless it stays in
 * the folder, and then at most MAX_PAGE_FILE_BYTES is read of it.
 */
const checkTotalBytes = async (root: string, files: readonly string[]): Promise<void> => {
  let total = 0;
  for (let i = 0; i < files.length; i += STAT_BATCH) {
    const sizes = await Promise.all(
      files.slice(i, i + STAT_BATCH).map((file) =>
        lstat(path.join(root, file)).then(
          (info) => (info.isFile() ? info.size : 0),
          () => 0,
        ),
      ),
    );
    for (const size of sizes) total += size;
    if (total > MAX_DOCS_TOTAL_BYTES)
      throw new DocsFolderLimitError(
        `docs folder's .md/.mdx files hold more than ${MAX_DOCS_TOTAL_BYTES} bytes (MAX_DOCS_TOTAL_BYTES); nothing ingested`,
      );
  }
};

/** Plain code-unit order, so output does not depend on the machine's locale. */
export const comparePaths = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Files that are not pages in a plain Markdown folder (no docs.json / mint.json). Snippets are fragments
 * included by other pages; repository housekeeping files are about the repo, not the product. README is
 * kept: in a bare docs folder it is usually the landing page.
 */
const PLAIN_SKIPPED_NAMES = new Set([
  'contributing',
  'code_of_conduct',
  'code-of-conduct',
  'license',
  'licence',
  'security',
  'pull_request_template',
  'issue_template',
]);

export const isPlainFolderPage = (file: string): 'page' | 'fragment' | 'housekeeping' => {
  const segments = file.split('/');
  if (segments.slice(0, -1).some((s) => s === 'snippets' || s === '_snippets')) return 'fragment';
  const base = pageIdOf(segments[segments.length - 1] ?? '').toLowerCase();
  if (base.startsWith('_')) return 'fragment';
  if (PLAIN_SKIPPED_NAMES.has(base)) return 'housekeeping';
  return 'page';
};
