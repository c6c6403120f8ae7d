import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listDocsFiles } from '../docs-files.ts';
import type { Navigation, NavPage } from '../navigation.ts';
import type { Warning } from '../types.ts';
import { WarningSink } from '../warnings.ts';
import { readFrameworkNavigation } from './read-framework-navigation.ts';

/** Test support: reads a fixture's navigation the way the docs loader will, and checks its files. */

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

export interface FixtureNavigation {
  nav: Navigation;
  warnings: Warning[];
  /** The file the loader picks for each page id (NavPage.file, else `<id>.mdx`/`<id>.md`). */
  fileOf: Map<string, string | undefined>;
  page(id: string): NavPage;
}

export const readFolderNavigation = async (root: string): Promise<FixtureNavigation | null> => {
  const docs = await listDocsFiles(root);
  const sink = new WarningSink();
  const nav = await readFrameworkNavigation(root, sink, docs.files);
  if (!nav) return null;
  const listed = new Set(docs.files);
  // The same choice load-docs-folder.ts makes for a navigation page.
  const fileOf = new Map(
    nav.pages.map((p) => [
      p.id,
      p.file !== undefined ? (listed.has(p.file) ? p.file : undefined) : docs.byPageId.get(p.id),
    ]),
  );
  return {
    nav,
    warnings: sink.list(nav.summary.kind),
    fileOf,
    page: (id) => {
      const found = nav.pages.find((p) => p.id === id);
      if (!found) throw new Error(`no page ${id}; have ${nav.pages.map((p) => p.id).join(', ')}`);
      return found;
    },
  };
};

export const readFixture = async (name: string): Promise<FixtureNavigation> => {
  const result = await readFolderNavigation(path.join(FIXTURES, name));
  if (!result) throw new Error(`fixture ${name} has no framework navigation`);
  return result;
};

/** 1-based line of the first line of a fixture file containing `text`. */
export const fixtureLine = (name: string, file: string, text: string): number => {
  const lines = readFileSync(path.join(FIXTURES, name, file), 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`${text} not in ${name}/${file}`);
  return index + 1;
};
