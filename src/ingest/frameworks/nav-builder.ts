import { pageIdOf } from '../docs-files.ts';
import type { Navigation, NavPage } from '../navigation.ts';
import type { NavigationSummary } from '../types.ts';
import type { FrameworkContext } from './framework-context.ts';
import { MAX_SIDEBAR_ENTRIES } from './limits.ts';

/** One place a framework's navigation puts a page. */
export interface Placement {
  /** URL path under the site's base URL, no leading or trailing slash (`docs/next/intro`). */
  id: string;
  /** The page file, relative to the root. */
  file: string;
  /** Config file and line that placed it (the sidebar entry), or the page file itself when appended. */
  configFile: string;
  line?: number;
  group: string | null;
  version: string | null;
  language: string | null;
}

interface MutablePage {
  id: string;
  file: string;
  configFile: string;
  line: number | undefined;
  versions: Set<string>;
  languages: Set<string>;
  order: number;
  group: string | null;
}

/**
 * Collects placements in navigation order into NavPages. A page placed twice keeps its first place (order
 * and group) and gathers the labels of both; two files claiming one URL keep the first, with a warning,
 * since the framework would build only one of them.
 */
export class NavBuilder {
  private readonly pages = new Map<string, MutablePage>();
  private readonly idsByFile = new Map<string, string>();
  private placements = 0;
  private capped = false;

  constructor(private readonly ctx: FrameworkContext) {}

  /** False once MAX_SIDEBAR_ENTRIES placements were made: walkers stop there. */
  get open(): boolean {
    return !this.capped;
  }

  /** Counts one walked entry (listed page, link, category…) against MAX_SIDEBAR_ENTRIES. */
  spend(configFile: string): boolean {
    if (this.capped) return false;
    if (++this.placements > MAX_SIDEBAR_ENTRIES) {
      this.capped = true;
      this.ctx.warn(
        configFile,
        undefined,
        `navigation has more than ${MAX_SIDEBAR_ENTRIES} entries; the rest is ignored`,
      );
      return false;
    }
    return true;
  }

  /**
   * A slug or rewrite may climb with `..` (`slug: ../../x`): a browser resolves such a URL path above the
   * site's base, so a citation would lead off the site. The id is resolved as a URL path is, clamped at
   * the site's root, and the config is warned about.
   */
  private withinRoot(placement: Placement): Placement {
    // As a browser splits and reads a URL path: `\\` is `/`, and `%2e` is a dot.
    const parts = placement.id.split(/[/\\]/);
    const dots = (segment: string): string => segment.replace(/%2e/gi, '.');
    if (!parts.some((segment) => dots(segment) === '..')) return placement;
    const segments: string[] = [];
    for (const segment of parts) {
      const plain = dots(segment);
      if (plain === '..') segments.pop();
      else if (plain !== '' && plain !== '.') segments.push(segment);
    }
    const id = pageIdOfUrl(segments.join('/'));
    this.ctx.warn(
      placement.configFile,
      placement.line,
      `${placement.file} would be published at "${placement.id}", above the site's root; indexed at "${id}"`,
    );
    return { ...placement, id };
  }

  hasFile(file: string): boolean {
    return this.idsByFile.has(file);
  }

  /**
   * Labels a page placed already with one more language, keeping its place: a page the framework shows
   * in that language too, where the language has no translation of it (the default language's text).
   */
  addLanguage(id: string, language: string): void {
    this.pages.get(id)?.languages.add(language);
  }

  add(written: Placement): void {
    if (!this.spend(written.configFile)) return;
    const placement = this.withinRoot(written);
    const existing = this.pages.get(placement.id);
    if (existing && existing.file !== placement.file) {
      this.ctx.warn(
        placement.configFile,
        placement.line,
        `${placement.file} and ${existing.file} are both published at "${placement.id}"; only ${existing.file} is indexed`,
      );
      return;
    }
    const page =
      existing ??
      ({
        id: placement.id,
        file: placement.file,
        configFile: placement.configFile,
        line: placement.line,
        versions: new Set(),
        languages: new Set(),
        order: this.placements,
        group: placement.group,
      } satisfies MutablePage);
    if (!existing) {
      this.pages.set(placement.id, page);
      this.idsByFile.set(placement.file, placement.id);
    }
    if (placement.version !== null) page.versions.add(placement.version);
    if (placement.language !== null) page.languages.add(placement.language);
  }

  build(summary: NavigationSummary): Navigation {
    const lines = new Map<string, number>();
    const pages: NavPage[] = [...this.pages.values()]
      .sort((a, b) => a.order - b.order)
      .map((page) => {
        // `raw` is what lineOf looks up; the page id is unique, so it names the entry.
        if (page.line !== undefined) lines.set(`${page.configFile}\0${page.id}`, page.line);
        const nav: NavPage = {
          id: page.id,
          raw: page.id,
          configFile: page.configFile,
          versions: [...page.versions],
          languages: [...page.languages],
          hidden: false,
          order: page.order,
          group: page.group,
        };
        if (pageIdOf(page.file) !== page.id) nav.file = page.file;
        return nav;
      });
    return {
      summary,
      pages,
      lineOf: (file, raw) => lines.get(`${file}\0${raw}`),
      indexHidden: false,
    };
  }
}

/** Joins URL segments into a page id: no leading, trailing or doubled slashes; '' for the site root. */
export const joinUrl = (...parts: string[]): string =>
  parts
    .join('/')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/');

/**
 * The site root's URL path is empty; its page id is `index`, as Mintlify names its home page, and
 * static hosts serve `/index` (or `/index.html`) as the home page.
 */
export const pageIdOfUrl = (url: string): string => {
  const id = joinUrl(url);
  return id === '' ? 'index' : id;
};
