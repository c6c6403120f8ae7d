import path from 'node:path';
import type { Navigation } from '../navigation.ts';
import type { FrameworkContext } from './framework-context.ts';
import { globMatcher } from './glob.ts';
import { MAX_LANGUAGES, MAX_SIDEBAR_DEPTH } from './limits.ts';
import { NavBuilder, pageIdOfUrl } from './nav-builder.ts';
import { isExternalLink, siteRelative } from './site-paths.ts';
import {
  asArray,
  asBoolean,
  asObject,
  asString,
  describe,
  field,
  type StaticValue,
  unwrapCall,
} from './static-value.ts';

/** Wrappers VitePress sites put around their config (themes and plugins that take and return it). */
const CONFIG_WRAPPERS = [
  'defineConfig',
  'defineConfigWithTheme',
  'withMermaid',
  'withPwa',
  'withSidebar',
  'withI18n',
];

interface VitePressPage {
  /** The page's URL path as its sidebar links name it: `guide/setup`. */
  id: string;
  /** Its URL as published: `guide/setup.html` unless `cleanUrls` (a folder's index: the folder). */
  published: string;
  file: string;
  /** Language label; null on a single-language site. */
  language: string | null;
}

/** VitePress' URL for a source path: `guide/setup.md` → `guide/setup`, `guide/index.md` → `guide`. */
export const vitepressUrl = (source: string): string => {
  const withoutExt = source.replace(/\.md$/i, '');
  return withoutExt === 'index' ? '' : withoutExt.replace(/\/index$/, '');
};

/** A sidebar link as a page id: `/guide/setup.md#x` → `guide/setup`, `/guide/` → `guide`, `/` → `index`. */
const linkId = (link: string, base: string): string => {
  const target = link.replace(/[?#].*$/, '');
  const full = target.startsWith('/') ? target : `${base.endsWith('/') ? base : `${base}/`}${target}`;
  const id = path.posix
    .normalize(full)
    .replace(/\.(md|html)$/i, '')
    .replace(/\/index$/, '')
    .replace(/^\/+|\/+$/g, '');
  return id === 'index' || id === '.' ? '' : id;
};

/**
 * VitePress: pages under `srcDir` (minus `srcExclude`, with plain `rewrites`), `themeConfig.sidebar` (one
 * list, or one per path prefix) and `locales` (root plus `<lang>/` folders, each with its own sidebar).
 * Every Markdown file is published, so pages no sidebar lists follow the sidebars, in file order.
 */
export const readVitePress = async (
  ctx: FrameworkContext,
  siteDir: string,
  configFile: string,
): Promise<Navigation> => {
  const read = await ctx.readConfig(configFile);
  const exported = read.status === 'ok' ? read.value : undefined;
  const config = unwrapCall(exported, CONFIG_WRAPPERS);
  const fallback = 'pages are indexed in folder order';
  const partFallback = 'its pages are indexed after the sidebar, in folder order';
  if (config !== undefined && !asObject(config))
    ctx.warn(
      configFile,
      config.line,
      `the config is ${describe(config)}, which cannot be read statically; ${fallback}`,
    );
  const builder = new NavBuilder(ctx);

  const srcDirValue = field(config, 'srcDir');
  if (srcDirValue !== undefined && asString(srcDirValue) === undefined)
    ctx.warn(configFile, srcDirValue.line, `srcDir is ${describe(srcDirValue)}; using the project folder`);
  const srcDir = siteRelative(ctx, siteDir, asString(srcDirValue) ?? '.', configFile, '.');
  const name = asString(field(config, 'title')) ?? null;
  if (srcDir === null) return builder.build({ kind: 'vitepress', versions: [], languages: [], name });

  const excluded = readExcludes(ctx, configFile, field(config, 'srcExclude'));
  const rewrites = readRewrites(ctx, configFile, field(config, 'rewrites'));
  const locales = readLocales(ctx, configFile, config);
  const multilingual = locales.length > 1;

  // Without `cleanUrls: true` (VitePress' default), a page is published at its built file,
  // `guide/setup.html`, and every link VitePress makes to it says so; a folder's index at the folder.
  const cleanUrls = asBoolean(field(config, 'cleanUrls')) === true;
  const pages: VitePressPage[] = [];
  for (const file of ctx.filesUnder(srcDir)) {
    const source = srcDir === '' ? file : file.slice(srcDir.length + 1);
    // Markdown under public/ is copied as a static file, not built into a page.
    if (!/\.md$/i.test(source) || source.startsWith('public/') || excluded(source)) continue;
    const target = rewrites.get(source) ?? source;
    const url = vitepressUrl(target);
    const first = url.split('/')[0] ?? '';
    const locale = locales.find((l) => l.dir !== '' && l.dir === first) ?? locales.find((l) => l.dir === '');
    const isIndex = /(^|\/)index\.md$/i.test(target);
    pages.push({
      id: pageIdOfUrl(url),
      published: cleanUrls || isIndex ? pageIdOfUrl(url) : `${pageIdOfUrl(url)}.html`,
      file,
      language: multilingual && locale ? locale.label : null,
    });
  }
  const byId = new Map(pages.map((page) => [page.id, page]));

  const emit = (page: VitePressPage, group: string | null, line: number | undefined): void =>
    builder.add({
      id: page.published,
      file: page.file,
      configFile,
      ...(line === undefined ? {} : { line }),
      group,
      version: null,
      language: page.language,
    });

  const walkItems = (items: StaticValue, base: string, group: string | null, depth: number): void => {
    if (depth > MAX_SIDEBAR_DEPTH) {
      ctx.warn(
        configFile,
        items.line,
        `sidebar nested deeper than ${MAX_SIDEBAR_DEPTH} levels; the rest is ignored`,
      );
      return;
    }
    const list = asArray(items);
    if (!list) {
      ctx.warn(
        configFile,
        items.line,
        `sidebar items are ${describe(items)}, which cannot be read statically; ${partFallback}`,
      );
      return;
    }
    for (const item of list) {
      if (!builder.spend(configFile)) return;
      const entry = asObject(item);
      if (!entry) {
        ctx.warn(
          configFile,
          item.line,
          `sidebar item is ${describe(item)}, which cannot be read statically; ${partFallback}`,
        );
        continue;
      }
      const text = asString(field(entry, 'text'))?.trim();
      const itemBase = asString(field(entry, 'base')) ?? base;
      const children = field(entry, 'items');
      // An item with children is a section: it (and its own link) carry its text as the group.
      const ownGroup = children !== undefined && text ? text : group;
      const link = asString(field(entry, 'link'));
      if (link !== undefined && !isExternalLink(link.trim())) {
        const page = byId.get(pageIdOfUrl(linkId(link.trim(), itemBase)));
        if (page) emit(page, ownGroup, item.line);
        else ctx.warn(configFile, item.line, `sidebar links to "${link}", which is not a page of the site`);
      }
      if (children !== undefined) walkItems(children, itemBase, ownGroup, depth + 1);
    }
  };

  const walkSidebar = (sidebar: StaticValue): void => {
    if (asArray(sidebar)) {
      walkItems(sidebar, '/', null, 0);
      return;
    }
    const multi = asObject(sidebar);
    if (!multi) {
      ctx.warn(
        configFile,
        sidebar.line,
        `sidebar is ${describe(sidebar)}, which cannot be read statically; ${fallback}`,
      );
      return;
    }
    for (const { what, line } of multi.opaque)
      ctx.warn(configFile, line, `sidebar part is ${what}; ${partFallback}`);
    // `{ '/guide/': [...], '/api/': { base: '/api/', items: [...] } }`: one sidebar per path prefix.
    for (const [prefix, value] of multi.entries) {
      // A list, or `{ base, items }`; anything else (an imported list) is walked to say what it is.
      const items = asObject(value) ? field(value, 'items') : value;
      const base = asString(field(value, 'base')) ?? '/';
      if (items === undefined)
        ctx.warn(configFile, value.line, `sidebar for "${prefix}" has no items; ignored`);
      else walkItems(items, base, null, 0);
    }
  };

  const sidebars: StaticValue[] = [];
  const main = field(field(config, 'themeConfig'), 'sidebar');
  if (main !== undefined) sidebars.push(main);
  for (const locale of locales) if (locale.sidebar !== undefined) sidebars.push(locale.sidebar);
  for (const sidebar of sidebars) {
    if (!builder.open) break;
    walkSidebar(sidebar);
  }
  for (const page of pages) if (!builder.hasFile(page.file)) emit(page, null, undefined);

  const nav = builder.build({
    kind: 'vitepress',
    versions: [],
    languages: multilingual ? locales.map((l) => l.label) : [],
    name,
  });
  return { ...nav, sourceRoot: srcDir };
};

interface VitePressLocale {
  /** URL segment and folder ('' for root). */
  dir: string;
  label: string;
  sidebar: StaticValue | undefined;
}

/** `locales: { root: { lang }, fr: { lang, themeConfig: { sidebar } } }`; labels are each locale's `lang`. */
const readLocales = (
  ctx: FrameworkContext,
  file: string,
  config: StaticValue | undefined,
): VitePressLocale[] => {
  const locales = field(config, 'locales');
  const siteLang = asString(field(config, 'lang')) ?? 'en-US';
  const object = asObject(locales);
  if (locales !== undefined && !object)
    ctx.warn(
      file,
      locales.line,
      `locales are ${describe(locales)}, which cannot be read statically; pages are not labelled by language`,
    );
  const result: VitePressLocale[] = [];
  for (const [key, value] of object?.entries ?? []) {
    if (result.length >= MAX_LANGUAGES) {
      ctx.warn(file, locales?.line, `more than ${MAX_LANGUAGES} locales; the rest are ignored`);
      break;
    }
    const dir = key === 'root' ? '' : key.replace(/^\/+|\/+$/g, '');
    if (dir.includes('/') || dir === '..') {
      ctx.warn(file, value.line, `locale "${key}" is not a folder name; ignored`);
      continue;
    }
    const lang = asString(field(value, 'lang'));
    const sidebar = field(field(value, 'themeConfig'), 'sidebar');
    result.push({ dir, label: lang ?? (key === 'root' ? siteLang : key), sidebar });
  }
  return result.sort((a, b) => Number(b.dir === '') - Number(a.dir === ''));
};

const readExcludes = (
  ctx: FrameworkContext,
  file: string,
  value: StaticValue | undefined,
): ((source: string) => boolean) => {
  if (value === undefined) return () => false;
  const list = asArray(value);
  if (!list) {
    ctx.warn(
      file,
      value.line,
      `srcExclude is ${describe(value)}, which cannot be read statically; nothing is excluded`,
    );
    return () => false;
  }
  const matchers = list.flatMap((item) => {
    const pattern = asString(item);
    const matcher = pattern === undefined ? null : globMatcher(pattern);
    if (!matcher)
      ctx.warn(
        file,
        item.line,
        `srcExclude entry ${pattern === undefined ? describe(item) : `"${pattern}"`} is not read; ignored`,
      );
    return matcher ? [matcher] : [];
  });
  return (source) => matchers.some((matches) => matches(source));
};

/** Plain `rewrites` (`'packages/a/index.md': 'a/index.md'`); patterns with `:params` are not applied. */
const readRewrites = (
  ctx: FrameworkContext,
  file: string,
  value: StaticValue | undefined,
): Map<string, string> => {
  const rewrites = new Map<string, string>();
  if (value === undefined) return rewrites;
  const object = asObject(value);
  if (!object) {
    ctx.warn(
      file,
      value.line,
      `rewrites are ${describe(value)}, which cannot be read statically; pages keep their file paths`,
    );
    return rewrites;
  }
  for (const [from, to] of object.entries) {
    const target = asString(to);
    if (target === undefined || /[:*()]/.test(from) || /[:*()]/.test(target)) {
      ctx.warn(file, to.line, `rewrite "${from}" has parameters or is not text; not applied`);
      continue;
    }
    rewrites.set(from.replace(/^\/+/, ''), target.replace(/^\/+/, ''));
  }
  return rewrites;
};
