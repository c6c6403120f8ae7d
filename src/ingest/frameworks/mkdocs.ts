import path from 'node:path';
import type { AnchorStyle } from '../heading-anchors.ts';
import { DocsConfigError, type Navigation } from '../navigation.ts';
import type { FrameworkContext } from './framework-context.ts';
import { MAX_LANGUAGES, MAX_SIDEBAR_DEPTH } from './limits.ts';
import { mkdocsExclusions } from './mkdocs-exclude.ts';
import { inLanguage, type MkDocsLanguage, readMkDocsI18n } from './mkdocs-i18n.ts';
import { joinUrl, NavBuilder, pageIdOfUrl } from './nav-builder.ts';
import { isExternalLink, siteRelative } from './site-paths.ts';
import { asArray, asBoolean, asObject, asString, describe, field, type StaticValue } from './static-value.ts';

/** MkDocs' title for a folder in the automatic nav: `user-guide` → `User guide`. */
export const dirnameToTitle = (name: string): string => {
  const title = name.replace(/[-_]/g, ' ');
  return title.toLowerCase() === title ? title.charAt(0).toUpperCase() + title.slice(1) : title;
};

/**
 * A page's URL path from its path under docs_dir: `guide/setup.md` → `guide/setup` (MkDocs serves
 * `guide/setup/`), `guide/index.md` → `guide`, and `README.md` like `index.md` unless an `index.md` sits
 * beside it. With `use_directory_urls: false` the URL is the built file: `guide/setup.html`.
 */
export const mkdocsUrl = (src: string, directoryUrls: boolean, hasIndexSibling: boolean): string => {
  const dir = path.posix.dirname(src) === '.' ? '' : path.posix.dirname(src);
  const stem = path.posix.basename(src).replace(/\.(md|markdown|mdx)$/i, '');
  const isIndex = stem === 'index' || (stem.toLowerCase() === 'readme' && !hasIndexSibling);
  if (directoryUrls) return isIndex ? dir : joinUrl(dir, stem);
  return joinUrl(dir, isIndex ? 'index.html' : `${stem}.html`);
};

/** MkDocs' file order for the automatic nav: per folder, the index first, then names in order. */
const autoNavKey = (src: string): string =>
  src
    .split('/')
    .map((segment, i, all) => {
      const isLast = i === all.length - 1;
      const isIndex = isLast && /^(index|readme)\.md$/i.test(segment);
      return `${isIndex ? '0' : '1'}${segment}`;
    })
    .join('\u0000');

/**
 * MkDocs: `docs_dir` (default `docs`), `nav` (titles, sections as groups), mkdocs-static-i18n languages
 * (suffix or folder structure) and a mike version. Pages the nav leaves out are still built by MkDocs,
 * so they follow the nav, in MkDocs' automatic order; without a nav that order (folders as sections) is
 * the whole navigation.
 */
export const readMkDocs = async (
  ctx: FrameworkContext,
  siteDir: string,
  configFile: string,
): Promise<Navigation> => {
  const read = await ctx.readRequiredConfig(configFile);
  const config = read.status === 'ok' ? read.value : undefined;
  // MkDocs refuses to build from anything else: so does Docent, for the reason readRequiredConfig gives.
  // An empty file (or only comments) is no value at all, which MkDocs reads as an empty mapping: its
  // defaults, with nothing excluded or listed that they would lose.
  if (config && config.kind !== 'null' && !asObject(config))
    throw new DocsConfigError(
      `${configFile} is ${describe(config)}, not a mapping (line ${config.line}); fix it and ingest again (nothing was indexed or changed)`,
    );

  const docsDirValue = field(config, 'docs_dir');
  const docsDirWritten = asString(docsDirValue) ?? 'docs';
  if (docsDirValue !== undefined && asString(docsDirValue) === undefined)
    ctx.warn(configFile, docsDirValue.line, `docs_dir is ${describe(docsDirValue)}; using "docs"`);
  const docsDir = siteRelative(ctx, siteDir, docsDirWritten, configFile, 'docs');
  const builder = new NavBuilder(ctx);
  const name = asString(field(config, 'site_name')) ?? null;
  if (docsDir === null) return builder.build({ kind: 'mkdocs', versions: [], languages: [], name });
  // The folder read, as the config names folders (a docs_dir leading outside was replaced by "docs").
  const docsDirShown = path.posix.relative(siteDir, docsDir) || '.';
  const inherit = field(config, 'INHERIT');
  if (inherit !== undefined)
    ctx.warn(
      configFile,
      inherit.line,
      'INHERIT (a parent config) is not read; only the settings of this file are used',
    );

  const directoryUrls = asBoolean(field(config, 'use_directory_urls')) !== false;
  const version = mikeVersion(ctx, configFile, config);
  const i18n = readMkDocsI18n(ctx, configFile, config);
  const languages = i18n.languages.slice(0, MAX_LANGUAGES);
  const multilingual = languages.length > 1;
  const defaultLanguage = languages.find((l) => l.isDefault) ?? languages[0];
  const excluded = mkdocsExclusions(ctx, configFile, config);

  let sources = ctx
    .filesUnder(docsDir)
    .map((file) => (docsDir === '' ? file : file.slice(docsDir.length + 1)))
    .filter((src) => /\.md$/i.test(src))
    // exclude_docs and draft_docs: MkDocs does not build these.
    .filter((src) => !excluded(src))
    // A language MkDocs does not build has no pages, not even as the default language's.
    .filter((src) => !inLanguage(src, i18n.unbuilt, i18n.structure));
  const sourceSet = new Set(sources);
  // MkDocs builds README.md and index.md to the same page; beside an index.md, README.md is left out.
  for (const src of sources) {
    const dir = path.posix.dirname(src);
    if (
      path.posix.basename(src) !== 'README.md' ||
      !sourceSet.has(dir === '.' ? 'index.md' : `${dir}/index.md`)
    )
      continue;
    sourceSet.delete(src);
    ctx.warn(
      joinUrl(docsDir, src),
      undefined,
      'not built by MkDocs beside an index.md in the same folder; not indexed',
    );
  }
  sources = sources.filter((src) => sourceSet.has(src));
  const hasIndexSibling = (src: string): boolean => {
    const dir = path.posix.dirname(src);
    return sourceSet.has(dir === '.' ? 'index.md' : `${dir}/index.md`);
  };

  // Per language: the canonical path (as the main nav names it) → the source file of that language.
  const pagesOf = (language: MkDocsLanguage | undefined): Map<string, string> =>
    language && defaultLanguage
      ? languagePages(sources, language, defaultLanguage, languages)
      : identity(sources);
  const defaultPages = pagesOf(multilingual ? defaultLanguage : undefined);
  const pageId = (urlPrefix: string, canonical: string): string =>
    pageIdOfUrl(joinUrl(urlPrefix, mkdocsUrl(canonical, directoryUrls, hasIndexSibling(canonical))));

  for (const language of multilingual ? languages : [undefined]) {
    if (!builder.open) break;
    const pages = language === undefined || language === defaultLanguage ? defaultPages : pagesOf(language);
    const urlPrefix = joinUrl(version ?? '', language && !language.isDefault ? language.locale : '');
    const emit = (canonical: string, group: string | null, line: number | undefined): boolean => {
      const src = pages.get(canonical);
      if (src === undefined) return false;
      builder.add({
        id: pageId(urlPrefix, canonical),
        file: joinUrl(docsDir, src),
        configFile,
        ...(line === undefined ? {} : { line }),
        group,
        version,
        language: multilingual && language ? language.locale : null,
      });
      return true;
    };

    const nav = language?.nav ?? field(config, 'nav');
    if (nav !== undefined) {
      walkNav(ctx, configFile, nav, null, 0, builder, (raw, group, line) => {
        const canonical = path.posix.normalize(raw.replace(/^\/+/, '').replace(/[?#].*$/, ''));
        if (emit(canonical, group, line)) return;
        // A translation may be missing on purpose (the site falls back to the default text): no warning.
        if (!language || language === defaultLanguage)
          ctx.warn(configFile, line, `nav lists "${raw}", which is not in ${docsDirShown}/`);
      });
    }
    const unlisted = [...pages.keys()].sort((a, b) => compare(autoNavKey(a), autoNavKey(b)));
    for (const canonical of unlisted) {
      if (builder.hasFile(joinUrl(docsDir, pages.get(canonical) ?? ''))) continue;
      const dir = path.posix.dirname(canonical);
      emit(
        canonical,
        nav === undefined && dir !== '.' ? dirnameToTitle(path.posix.basename(dir)) : null,
        undefined,
      );
    }
    // Untranslated pages: this language shows the default language's page, so it is in this language too.
    if (language && language !== defaultLanguage) {
      for (const canonical of defaultPages.keys())
        if (!pages.has(canonical)) builder.addLanguage(pageId(version ?? '', canonical), language.locale);
    }
  }
  const nav = builder.build({
    kind: 'mkdocs',
    versions: version === null ? [] : [version],
    languages: multilingual ? languages.map((l) => l.locale) : [],
    name,
  });
  return { ...nav, anchors: headingIdStyle(ctx, configFile, config) };
};

/** Python-Markdown extensions as `markdown_extensions` lists them: `- attr_list` or `- toc: {…}`. */
const markdownExtensions = (config: StaticValue | undefined): Map<string, StaticValue | undefined> => {
  const found = new Map<string, StaticValue | undefined>();
  for (const item of asArray(field(config, 'markdown_extensions')) ?? []) {
    const named = asString(item);
    if (named !== undefined) found.set(named.replace(/^markdown\.extensions\./, ''), undefined);
    for (const [key, options] of asObject(item)?.entries ?? [])
      found.set(key.replace(/^markdown\.extensions\./, ''), options);
  }
  return found;
};

/**
 * How the site's headings get their ids: Python-Markdown's toc (which MkDocs always loads), reading
 * explicit ids when `attr_list` is enabled. A `slugify` function of its own for toc is Python code: not
 * read, with a warning, and the default slugify is used.
 */
const headingIdStyle = (
  ctx: FrameworkContext,
  configFile: string,
  config: StaticValue | undefined,
): AnchorStyle => {
  const extensions = markdownExtensions(config);
  const slugify = field(extensions.get('toc'), 'slugify');
  if (slugify !== undefined)
    ctx.warn(
      configFile,
      slugify.line,
      "toc's slugify is a Python function, which is not run; heading anchors follow Python-Markdown's default slugify and may not match the site's",
    );
  // pymdownx.emoji turns shortcodes into icons (no text for toc); without it `:rocket:` is text.
  const emoji = extensions.has('pymdownx.emoji');
  if (extensions.has('attr_list')) return emoji ? 'mkdocs-attr-list-emoji' : 'mkdocs-attr-list';
  return emoji ? 'mkdocs-emoji' : 'mkdocs';
};

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const identity = (sources: readonly string[]): Map<string, string> =>
  new Map(sources.map((src) => [src, src]));

/**
 * mkdocs-static-i18n: which file is each page in `language`. Suffix structure: `page.fr.md` (the default
 * language also takes plain `page.md`); folder structure: `fr/page.md`. Untranslated pages are not
 * listed for a language: the site shows the default language's text there, indexed once already (and
 * labelled with the language too).
 */
const languagePages = (
  sources: readonly string[],
  language: MkDocsLanguage,
  defaultLanguage: MkDocsLanguage,
  all: readonly MkDocsLanguage[],
): Map<string, string> => {
  const pages = new Map<string, string>();
  const locales = new Set(all.map((l) => l.locale));
  for (const src of sources) {
    if (language.structure === 'folder') {
      const [first, ...rest] = src.split('/');
      if (first === language.locale && rest.length > 0) pages.set(rest.join('/'), src);
      else if (language === defaultLanguage && first !== undefined && !locales.has(first) && !pages.has(src))
        pages.set(src, src);
      continue;
    }
    const match = /^(.*)\.([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]+)?)\.md$/.exec(src);
    const suffix = match?.[2];
    if (match?.[1] !== undefined && suffix !== undefined && locales.has(suffix)) {
      if (suffix === language.locale) pages.set(`${match[1]}.md`, src);
    } else if (language === defaultLanguage && !pages.has(src)) {
      pages.set(src, src);
    }
  }
  return pages;
};

/**
 * mike deploys each version from its own checkout, so a checkout holds one version and its config names
 * none. `extra.version.default` (the version or alias the site opens) labels the pages and starts their
 * URLs, as mike serves them under `<version>/`; without it the pages are unversioned.
 */
const mikeVersion = (
  ctx: FrameworkContext,
  configFile: string,
  config: StaticValue | undefined,
): string | null => {
  const version = field(field(config, 'extra'), 'version');
  if (asString(field(version, 'provider')) !== 'mike') return null;
  const preferred = field(version, 'default');
  const label = asString(preferred) ?? asString(asArray(preferred)?.[0]);
  if (label && /^[^/\\?#]+$/.test(label) && label !== '..') return label;
  ctx.warn(
    configFile,
    version?.line,
    'mike versioning without a readable extra.version.default: pages are indexed without a version, at URLs without a version segment',
  );
  return null;
};

type NavVisit = (raw: string, group: string | null, line: number) => void;

/** Walks `nav`: `- file.md`, `- Title: file.md`, `- Section: [...]`; links and unknown shapes are skipped. */
const walkNav = (
  ctx: FrameworkContext,
  file: string,
  node: StaticValue,
  group: string | null,
  depth: number,
  budget: Pick<NavBuilder, 'spend'>,
  visit: NavVisit,
): void => {
  if (depth > MAX_SIDEBAR_DEPTH) {
    ctx.warn(file, node.line, `nav nested deeper than ${MAX_SIDEBAR_DEPTH} levels; the rest is ignored`);
    return;
  }
  const list = asArray(node);
  if (!list) {
    ctx.warn(file, node.line, `nav is ${describe(node)}, not a list; pages are listed in folder order`);
    return;
  }
  for (const item of list) {
    if (!budget.spend(file)) return;
    const target = asString(item);
    if (target !== undefined) {
      if (!isExternalLink(target.trim())) visit(target.trim(), group, item.line);
      continue;
    }
    const entry = asObject(item);
    if (!entry || entry.entries.size !== 1) {
      ctx.warn(
        file,
        item.line,
        `nav entry is ${describe(item)}, not "Title: page" or "Section: [...]"; ignored`,
      );
      continue;
    }
    const [[title, value]] = [...entry.entries] as [[string, StaticValue]];
    const page = asString(value);
    if (page !== undefined) {
      if (!isExternalLink(page.trim())) visit(page.trim(), group, value.line);
    } else walkNav(ctx, file, value, title.trim() || group, depth + 1, budget, visit);
  }
};
