import path from 'node:path';
import { slug as githubSlug } from 'github-slugger';
import { mapLimit } from '../map-limit.ts';
import type { Navigation } from '../navigation.ts';
import type { FrameworkContext } from './framework-context.ts';
import { FRONT_MATTER_CONCURRENCY, MAX_LANGUAGES, MAX_SIDEBAR_DEPTH } from './limits.ts';
import { joinUrl, NavBuilder, pageIdOfUrl } from './nav-builder.ts';
import { isExternalLink } from './site-paths.ts';
import {
  asArray,
  asBoolean,
  asNumber,
  asObject,
  asString,
  describe,
  field,
  type StaticValue,
  unwrapCall,
} from './static-value.ts';

/** Where Starlight's docs collection lives, relative to the project. */
const CONTENT_DIR = 'src/content/docs';

interface StarlightPage {
  /** Slug as the sidebar names it, within the whole collection (`fr/guides/setup`, `index`). */
  slug: string;
  file: string;
  /** Locale folder ('' for the root locale). */
  locale: string;
  order: number | undefined;
  hiddenInSidebar: boolean;
}

interface Locale {
  /** Folder and URL segment ('' for `root`). */
  dir: string;
  label: string;
}

/** Astro's id for a content file: each path segment slugged, `/index` dropped. */
export const starlightSlug = (source: string): string => {
  const withoutExt = source.replace(/\.(mdx|md|markdown|mdoc)$/i, '');
  const slug = withoutExt
    .split('/')
    .map((segment) => githubSlug(segment))
    .join('/')
    .replace(/\/index$/, '');
  return slug;
};

/**
 * Astro Starlight: the docs collection (`src/content/docs/`), the `starlight({...})` integration's
 * `sidebar` (links, slugs, groups, `autogenerate`) and `locales`. Every page of the collection is
 * published, so pages the sidebar leaves out (or hides) follow it; drafts are left out.
 */
export const readStarlight = async (
  ctx: FrameworkContext,
  siteDir: string,
  configFile: string,
): Promise<Navigation> => {
  const read = await ctx.readConfig(configFile);
  const options = read.status === 'ok' ? starlightOptions(ctx, configFile, read.value) : undefined;
  const builder = new NavBuilder(ctx);
  const locales = readLocales(ctx, configFile, options);
  const contentDir = joinUrl(siteDir, CONTENT_DIR);
  const localeDirs = new Set(locales.map((l) => l.dir).filter((dir) => dir !== ''));

  const files = ctx.filesUnder(contentDir).filter((file) => !path.posix.basename(file).startsWith('_'));
  const loaded = await mapLimit(
    files,
    FRONT_MATTER_CONCURRENCY,
    async (file): Promise<StarlightPage | null> => {
      const source = file.slice(contentDir.length + 1);
      const fm = await ctx.frontMatter(file);
      if (asBoolean(field(fm, 'draft')) === true) return null;
      const written = asString(field(fm, 'slug'))?.trim();
      const slug = written ? written.replace(/^\/+|\/+$/g, '') : starlightSlug(source);
      const first = slug.split('/')[0] ?? '';
      const sidebar = field(fm, 'sidebar');
      return {
        slug: slug === '' ? 'index' : slug,
        file,
        locale: localeDirs.has(first) ? first : '',
        order: asNumber(field(sidebar, 'order')),
        hiddenInSidebar: asBoolean(field(sidebar, 'hidden')) === true,
      };
    },
  );
  const pages = loaded.filter((page): page is StarlightPage => page !== null);
  const bySlug = new Map(pages.map((page) => [page.slug, page]));
  const multilingual = locales.length > 1;
  const sidebar = field(options, 'sidebar');

  const labels = new Map(locales.map((locale) => [locale.dir, locale.label]));
  // A page's language is its folder's: a sidebar link (never localized) may reach another locale's page.
  const emit = (page: StarlightPage, group: string | null, line: number | undefined): void =>
    builder.add({
      id: pageIdOfUrl(page.slug === 'index' ? '' : page.slug),
      file: page.file,
      configFile,
      ...(line === undefined ? {} : { line }),
      group,
      version: null,
      language: multilingual ? (labels.get(page.locale) ?? null) : null,
    });

  for (const [index, locale] of locales.entries()) {
    if (!builder.open) break;
    const inLocale = pages.filter((page) => page.locale === locale.dir);
    const localized = (slug: string): string => joinUrl(locale.dir, slug);
    // Every locale walks the same sidebar: its problems are reported on the first walk only.
    const warn = (line: number | undefined, message: string): void => {
      if (index === 0) ctx.warn(configFile, line, message);
    };
    const autogenerate = (directory: string, group: string | null, depth: number): void => {
      const base = localized(directory.replace(/^\/+|\/+$/g, ''));
      const under = inLocale.filter(
        (page) =>
          !page.hiddenInSidebar && (base === '' || page.slug === base || page.slug.startsWith(`${base}/`)),
      );
      walkTree(ctx, configFile, treeOf(under, base), group, depth, builder, emit);
    };
    const walk = (items: StaticValue, group: string | null, depth: number): void => {
      if (depth > MAX_SIDEBAR_DEPTH) {
        warn(items.line, `sidebar nested deeper than ${MAX_SIDEBAR_DEPTH} levels; the rest is ignored`);
        return;
      }
      const list = asArray(items);
      if (!list) {
        warn(
          items.line,
          `sidebar items are ${describe(items)}; their pages are indexed after the sidebar, in folder order`,
        );
        return;
      }
      for (const item of list) {
        if (!builder.spend(configFile)) return;
        const toPage = (slug: string, line: number): void => {
          const page = bySlug.get(localized(slug.replace(/^\/+|\/+$/g, '')) || 'index');
          if (page) emit(page, group, line);
          else warn(line, `sidebar names "${slug}", which is not a page of ${CONTENT_DIR}/ (or is a draft)`);
        };
        const shorthand = asString(item);
        if (shorthand !== undefined) {
          toPage(shorthand, item.line);
          continue;
        }
        const entry = asObject(item);
        if (!entry) {
          warn(
            item.line,
            `sidebar item is ${describe(item)}; its pages are indexed after the sidebar, in folder order`,
          );
          continue;
        }
        const label = asString(field(entry, 'label'))?.trim() || group;
        const slug = asString(field(entry, 'slug'));
        const link = asString(field(entry, 'link'));
        const children = field(entry, 'items');
        const auto = field(entry, 'autogenerate');
        if (slug !== undefined) toPage(slug, item.line);
        else if (link !== undefined) {
          // Links are written as URLs and are not localized; an internal one names its page by URL.
          const target = link.trim().replace(/[?#].*$/, '');
          if (!isExternalLink(target)) {
            const page = bySlug.get(target.replace(/^\/+|\/+$/g, '') || 'index');
            if (page) emit(page, group, item.line);
          }
        } else if (children !== undefined) walk(children, label, depth + 1);
        else if (auto !== undefined) {
          const directory = asString(field(auto, 'directory'));
          if (directory === undefined)
            warn(auto.line, `autogenerate is ${describe(auto)} without a readable "directory"; ignored`);
          else autogenerate(directory, label, depth + 1);
        } else warn(item.line, 'sidebar item has no slug, link, items or autogenerate; ignored');
      }
    };
    if (sidebar === undefined) autogenerate('', null, 0);
    else walk(sidebar, null, 0);
    for (const page of inLocale) if (!builder.hasFile(page.file)) emit(page, null, undefined);
  }
  // Outside every locale folder (a root redirect page when all locales have folders): published, unlabelled.
  for (const page of pages) if (!builder.hasFile(page.file)) emit(page, null, undefined);
  // Starlight shows the default locale's page where a locale has no translation of it: that page is in
  // the other locale's language too.
  const [defaultLocale, ...others] = locales;
  if (multilingual && defaultLocale !== undefined) {
    for (const page of pages) {
      if (page.locale !== defaultLocale.dir) continue;
      const dir = defaultLocale.dir;
      const rest = dir === '' ? page.slug : page.slug === dir ? '' : page.slug.slice(dir.length + 1);
      const own = rest === 'index' ? '' : rest;
      for (const locale of others)
        if (!bySlug.has(joinUrl(locale.dir, own) || 'index'))
          builder.addLanguage(pageIdOfUrl(page.slug === 'index' ? '' : page.slug), locale.label);
    }
  }
  const nav = builder.build({
    kind: 'starlight',
    versions: [],
    languages: multilingual ? locales.map((l) => l.label) : [],
    name: starlightTitle(options),
  });
  const trims = await astroTrimsHeadingIds(ctx, siteDir, read.status === 'ok' ? read.value : undefined);
  return { ...nav, anchors: trims ? 'starlight' : 'github' };
};

/**
 * Whether Astro drops a trailing `-` from the heading ids it makes: Astro 5 and older do, unless
 * `experimental.headingIdCompat` is set; Astro 6 made github-slugger's ids the only behaviour. Told by
 * the `astro` version the site's package.json asks for; without one, the current behaviour.
 */
const astroTrimsHeadingIds = async (
  ctx: FrameworkContext,
  siteDir: string,
  exported: StaticValue | undefined,
): Promise<boolean> => {
  const config = exported === undefined ? undefined : unwrapCall(exported, ['defineConfig']);
  if (asBoolean(field(field(config, 'experimental'), 'headingIdCompat')) === true) return false;
  const pkg = await ctx.readText(joinUrl(siteDir, 'package.json'));
  if (pkg.status !== 'ok') return false;
  let manifest: unknown;
  try {
    manifest = JSON.parse(pkg.text);
  } catch {
    return false;
  }
  const versionOf = (key: string): unknown =>
    typeof manifest === 'object' && manifest !== null
      ? (manifest as Record<string, Record<string, unknown> | undefined>)[key]?.astro
      : undefined;
  const version = [versionOf('dependencies'), versionOf('devDependencies')].find(
    (v) => typeof v === 'string',
  );
  const major = typeof version === 'string' ? /^\D*(\d+)/.exec(version)?.[1] : undefined;
  return major !== undefined && Number(major) <= 5;
};

const starlightTitle = (options: StaticValue | undefined): string | null => {
  const title = field(options, 'title');
  const text = asString(title);
  if (text !== undefined) return text;
  // `title: { en: 'Docs', fr: 'Docs' }`: the first translation.
  const first = asObject(title)?.entries.values().next().value;
  return asString(first) ?? null;
};

/** The options of `starlight({...})` in `integrations`, or undefined (with a warning) when not readable. */
const starlightOptions = (
  ctx: FrameworkContext,
  file: string,
  exported: StaticValue,
): StaticValue | undefined => {
  const config = unwrapCall(exported, ['defineConfig']);
  const integrations = field(config, 'integrations');
  const fallback = 'all pages are listed in folder order';
  if (!asArray(integrations)) {
    const where = integrations ?? config ?? exported;
    ctx.warn(
      file,
      where.line,
      `integrations are ${describe(where)}, which cannot be read statically; ${fallback}`,
    );
    return undefined;
  }
  for (const integration of asArray(integrations) ?? []) {
    if (
      integration.kind === 'call' &&
      (integration.from === '@astrojs/starlight' || integration.callee === 'starlight')
    ) {
      const options = integration.args[0];
      if (asObject(options)) return options;
      if (options !== undefined)
        ctx.warn(
          file,
          options.line,
          `starlight() options are ${describe(options)}, which cannot be read statically; ${fallback}`,
        );
      return undefined;
    }
  }
  ctx.warn(file, integrations?.line, `no starlight({...}) call found among the integrations; ${fallback}`);
  return undefined;
};

/**
 * `locales: { root: {...}, fr: {...} }` with `defaultLocale`: each locale's folder and label (its `lang`,
 * else its key). A site without locales is one unlabelled locale at the root.
 */
const readLocales = (ctx: FrameworkContext, file: string, options: StaticValue | undefined): Locale[] => {
  const locales = field(options, 'locales');
  const object = asObject(locales);
  if (locales !== undefined && !object)
    ctx.warn(
      file,
      locales.line,
      `locales are ${describe(locales)}, which cannot be read statically; pages are not labelled by language`,
    );
  if (!object || object.entries.size === 0) return [{ dir: '', label: '' }];
  const defaultLocale = asString(field(options, 'defaultLocale'));
  const result: Locale[] = [];
  for (const [key, value] of object.entries) {
    if (result.length >= MAX_LANGUAGES) {
      ctx.warn(file, locales?.line, `more than ${MAX_LANGUAGES} locales; the rest are ignored`);
      break;
    }
    if (key !== 'root' && !/^[A-Za-z0-9][\w-]*$/.test(key)) {
      ctx.warn(file, value.line, `locale "${key}" is not a folder name; ignored`);
      continue;
    }
    result.push({
      dir: key === 'root' ? '' : key,
      label: asString(field(value, 'lang')) ?? (key === 'root' ? 'en' : key),
    });
  }
  // The default locale's pages come first, as its sidebar is the one most readers see.
  const first = defaultLocale === undefined ? 'root' : defaultLocale;
  return result.sort((a, b) => Number((b.dir || 'root') === first) - Number((a.dir || 'root') === first));
};

type Tree = { pages: StarlightPage[]; dirs: Map<string, Tree> };

const treeOf = (pages: readonly StarlightPage[], base: string): Tree => {
  const root: Tree = { pages: [], dirs: new Map() };
  for (const page of pages) {
    const rest = base === '' ? page.slug : page.slug === base ? '' : page.slug.slice(base.length + 1);
    const segments = rest === '' ? [] : rest.split('/');
    let node = root;
    for (const dir of segments.slice(0, -1)) {
      let next = node.dirs.get(dir);
      if (!next) {
        next = { pages: [], dirs: new Map() };
        node.dirs.set(dir, next);
      }
      node = next;
    }
    node.pages.push(page);
  }
  return root;
};

/** A folder sorts at its lowest `sidebar.order`, like Starlight; ties and unordered entries by name. */
const orderOf = (tree: Tree): number =>
  Math.min(...tree.pages.map((p) => p.order ?? Infinity), ...[...tree.dirs.values()].map(orderOf));

const walkTree = (
  ctx: FrameworkContext,
  file: string,
  tree: Tree,
  group: string | null,
  depth: number,
  builder: NavBuilder,
  emit: (page: StarlightPage, group: string | null, line: number | undefined) => void,
): void => {
  if (depth > MAX_SIDEBAR_DEPTH) {
    ctx.warn(
      file,
      undefined,
      `content folders nested deeper than ${MAX_SIDEBAR_DEPTH} levels; the rest is ignored`,
    );
    return;
  }
  type Entry = { name: string; order: number; page?: StarlightPage; dir?: Tree };
  const entries: Entry[] = [
    ...tree.pages.map((page) => ({
      name: page.slug.split('/').pop() ?? '',
      order: page.order ?? Infinity,
      page,
    })),
    ...[...tree.dirs].map(([name, dir]) => ({ name, order: orderOf(dir), dir })),
  ];
  entries.sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (!builder.spend(file)) return;
    if (entry.page) emit(entry.page, group, undefined);
    else if (entry.dir) walkTree(ctx, file, entry.dir, entry.name, depth + 1, builder, emit);
  }
};
