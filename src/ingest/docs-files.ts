import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** Folders that never hold pages: dependencies, build output, VCS and tool dot-folders. */
const IGNORED_DIRS = new Set(['node_modules']);

export interface DocsFiles {
  /** Every .md/.mdx file, relative to the root with `/` separators, sorted. */
  files: string[];
  /** Page id (path without extension) → relative file; `.mdx` wins over `.md` like Mintlify does. */
  byPageId: Map<string, string>;
  /** Directories that could not be read (relative paths), for warnings. */
  unreadable: string[];
}

export const pageIdOf = (file: string): string => file.replace(/\.(mdx|md)$/i, '');

export const isPageFile = (name: string): boolean => /\.(mdx|md)$/i.test(name);

/** Lists the docs folder once; the loader answers "does this nav page exist?" from the result. */
export const listDocsFiles = async (root: string): Promise<DocsFiles> => {
  const files: string[] = [];
  const unreadable: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(root, rel), { withFileTypes: true });
    } catch {
      unreadable.push(rel || '.');
      return;
    }
    const subdirs: string[] = [];
    for (const entry of entries) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name.startsWith('.') || IGNORED_DIRS.has(entry.name)) continue;
        subdirs.push(childRel);
      } else if ((entry.isFile() || entry.isSymbolicLink()) && isPageFile(entry.name)) {
        files.push(childRel);
      }
    }
    await Promise.all(subdirs.map(walk));
  };
  await walk('');
  files.sort(comparePaths);
  const byPageId = new Map<string, string>();
  for (const file of files) {
    const id = pageIdOf(file);
    const existing = byPageId.get(id);
    if (!existing || (existing.endsWith('.md') && file.endsWith('.mdx'))) byPageId.set(id, file);
  }
  return { files, byPageId, unreadable };
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
