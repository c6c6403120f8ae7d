import { mapLimit } from '../map-limit.ts';
import type { Navigation } from '../navigation.ts';
import {
  conventionalInstance,
  type DocsInstance,
  type DocusaurusConfig,
  readDocusaurusConfig,
} from './docusaurus-config.ts';
import { type DocusaurusDoc, isHiddenDocFile, loadDocusaurusDocs } from './docusaurus-docs.ts';
import { DocusaurusSidebarWalker, type SidebarTarget } from './docusaurus-sidebar.ts';
import type { FrameworkContext } from './framework-context.ts';
import { FRONT_MATTER_CONCURRENCY, MAX_VERSIONS } from './limits.ts';
import { joinUrl, NavBuilder, pageIdOfUrl } from './nav-builder.ts';
import { siteRelative } from './site-paths.ts';
import { asArray, asString, describe } from './static-value.ts';

interface DocsVersion {
  /** `current` or a versions.json entry. */
  name: string;
  /** Label for NavPage.versions; null when the site has only the current version. */
  label: string | null;
  /** URL segment after routeBasePath ('' for the last version). */
  urlPath: string;
  /** Content folder relative to the root. */
  contentDir: string;
  /** Sidebar file for this version, relative to the root; null for the instance's sidebar setting. */
  sidebarFile: string | null;
}

const SIDEBAR_EXTENSIONS = ['', '.js', '.ts', '.mjs', '.cjs', '.mts', '.cts', '.json'];
const CONVENTIONAL_SIDEBARS = ['sidebars.js', 'sidebars.ts', 'sidebars.mjs', 'sidebars.cjs', 'sidebars.json'];

/**
 * Docusaurus: docs of each docs plugin instance (the classic preset's and any `plugin-content-docs`), in
 * every version (current, then versions.json order) and locale (default first, then `i18n.locales`).
 * Sidebars give the order and groups; docs no sidebar lists are published all the same, so they follow,
 * in file order. Drafts are left out.
 */
export const readDocusaurus = async (
  ctx: FrameworkContext,
  siteDir: string,
  configFile: string,
): Promise<Navigation> => {
  const read = await ctx.readConfig(configFile);
  const config: DocusaurusConfig =
    read.status === 'ok'
      ? readDocusaurusConfig(ctx, configFile, read.value)
      : {
          title: null,
          instances: [conventionalInstance()],
          defaultLocale: 'en',
          locales: [],
          localePaths: new Map(),
        };
  const builder = new NavBuilder(ctx);
  const versionLabels: string[] = [];
  const locales = config.locales.length > 0 ? config.locales : [config.defaultLocale];
  const ordered = [config.defaultLocale, ...locales.filter((l) => l !== config.defaultLocale)];
  const multilingual = ordered.length > 1;

  for (const instance of config.instances) {
    // The default instance falls back to Docusaurus' own default folder; another plugin instance is left out.
    const fallback = instance.pluginId === 'default' ? 'docs' : undefined;
    const contentDir = siteRelative(ctx, siteDir, instance.path, configFile, fallback);
    if (contentDir === null) continue;
    const versions = await readVersions(ctx, siteDir, instance, contentDir);
    for (const v of versions)
      if (v.label !== null && !versionLabels.includes(v.label)) versionLabels.push(v.label);
    const docsByVersion = new Map<string, DocusaurusDoc[]>();
    for (const locale of ordered) {
      if (!builder.open) break;
      const isDefault = locale === config.defaultLocale;
      const localePath = isDefault ? '' : (config.localePaths.get(locale) ?? locale);
      for (const version of versions) {
        let docs = docsByVersion.get(version.name);
        if (!docs) {
          // Drafts are not built; unlisted docs are kept out of Docusaurus' own search, sitemap and sidebars.
          docs = (await loadDocusaurusDocs(ctx, version.contentDir, instance.exclude)).filter(
            (doc) => !doc.draft && !doc.unlisted,
          );
          docsByVersion.set(version.name, docs);
        }
        const localizedDir = isDefault ? null : localizedContentDir(siteDir, locale, instance, version);
        // Untranslated docs show the default locale's text; only translations are indexed per locale (the
        // default locale's page gets this locale's label too, below).
        const fileOf = (doc: DocusaurusDoc): string | null => {
          if (localizedDir === null) return doc.file;
          const translated = `${localizedDir}/${doc.source}`;
          return ctx.fileSet.has(translated) ? translated : null;
        };
        // A translation is read with its own front matter: a draft or unlisted one is no page in its
        // locale, and the locale does not show the default locale's text there either.
        const hiddenTranslations = new Set(
          (
            await mapLimit(docs, FRONT_MATTER_CONCURRENCY, async (doc) => {
              const translated = fileOf(doc);
              return translated !== null && localizedDir !== null && (await isHiddenDocFile(ctx, translated))
                ? translated
                : null;
            })
          ).filter((file): file is string => file !== null),
        );
        // A doc's page id under a locale's path ('' for the default locale).
        const pageIdIn = (prefix: string, doc: DocusaurusDoc): string =>
          pageIdOfUrl(joinUrl(prefix, instance.routeBasePath, version.urlPath, doc.slug));
        const target: SidebarTarget = {
          byId: new Map(docs.map((doc) => [doc.id, doc])),
          docs,
          contentDir: version.contentDir,
          versionName: version.name === 'current' ? null : version.name,
          warnMissing: isDefault,
          spend: (file) => builder.spend(file),
          emit: (doc, group, file, line) => {
            const pageFile = fileOf(doc);
            if (pageFile === null || hiddenTranslations.has(pageFile)) return;
            builder.add({
              id: pageIdIn(localePath, doc),
              file: pageFile,
              configFile: file,
              ...(line === undefined ? {} : { line }),
              group,
              version: version.label,
              language: multilingual ? locale : null,
            });
          },
        };
        await walkSidebar(ctx, siteDir, instance, version, target, configFile);
        for (const doc of docs) {
          const pageFile = fileOf(doc);
          if (pageFile !== null && hiddenTranslations.has(pageFile)) continue;
          if (pageFile === null) {
            // Untranslated: this locale shows the default locale's page, so that page is in its language too.
            if (multilingual) builder.addLanguage(pageIdIn('', doc), locale);
          } else if (!builder.hasFile(pageFile)) target.emit(doc, null, configFile, undefined);
        }
      }
    }
  }
  const nav = builder.build({
    kind: 'docusaurus',
    versions: versionLabels,
    languages: multilingual ? ordered : [],
    name: config.title,
  });
  return { ...nav, anchors: config.anchorsMaintainCase ? 'docusaurus-cased' : 'docusaurus' };
};

const instancePrefix = (instance: DocsInstance): string =>
  instance.pluginId === 'default' ? '' : `${instance.pluginId}_`;

const localizedContentDir = (
  siteDir: string,
  locale: string,
  instance: DocsInstance,
  version: DocsVersion,
): string =>
  joinUrl(
    siteDir,
    'i18n',
    locale,
    instance.pluginId === 'default'
      ? 'docusaurus-plugin-content-docs'
      : `docusaurus-plugin-content-docs-${instance.pluginId}`,
    version.name === 'current' ? 'current' : `version-${version.name}`,
  );

/** versions.json and the docs options give the versions, their labels and URL segments. */
const readVersions = async (
  ctx: FrameworkContext,
  siteDir: string,
  instance: DocsInstance,
  contentDir: string,
): Promise<DocsVersion[]> => {
  const versionsFile = joinUrl(siteDir, `${instancePrefix(instance)}versions.json`);
  const read = await ctx.readConfig(versionsFile);
  const named: string[] = [];
  if (read.status === 'ok') {
    const list = asArray(read.value);
    if (!list)
      ctx.warn(
        versionsFile,
        read.value.line,
        `versions.json is ${describe(read.value)}, not a list; ignored`,
      );
    for (const item of list ?? []) {
      const name = asString(item);
      if (name === undefined)
        ctx.warn(versionsFile, item.line, `version entry is ${describe(item)}; ignored`);
      else if (!/^[^/\\]+$/.test(name) || name === '..')
        ctx.warn(versionsFile, item.line, `version name "${name}" is not a folder name; ignored`);
      else if (named.includes(name))
        ctx.warn(versionsFile, item.line, `version "${name}" is listed twice; the first is used`);
      else named.push(name);
    }
    if (named.length > MAX_VERSIONS) {
      ctx.warn(versionsFile, undefined, `more than ${MAX_VERSIONS} versions; the rest are ignored`);
      named.length = MAX_VERSIONS;
    }
  }
  const lastVersion = instance.lastVersion ?? named[0] ?? 'current';
  const versioned = named.length > 0;
  let names = [...(instance.includeCurrentVersion ? ['current'] : []), ...named];
  if (instance.onlyIncludeVersions) {
    const only = instance.onlyIncludeVersions;
    names = names.filter((name) => only.includes(name));
  }
  return names.map((name) => {
    const options = instance.versionOptions.get(name);
    const prefix = instancePrefix(instance);
    return {
      name,
      label: versioned || options?.label ? (options?.label ?? (name === 'current' ? 'Next' : name)) : null,
      urlPath: options?.path ?? (name === lastVersion ? '' : name === 'current' ? 'next' : name),
      contentDir:
        name === 'current' ? contentDir : joinUrl(siteDir, `${prefix}versioned_docs`, `version-${name}`),
      sidebarFile:
        name === 'current'
          ? null
          : joinUrl(siteDir, `${prefix}versioned_sidebars`, `version-${name}-sidebars.json`),
    };
  });
};

const walkSidebar = async (
  ctx: FrameworkContext,
  siteDir: string,
  instance: DocsInstance,
  version: DocsVersion,
  target: SidebarTarget,
  configFile: string,
): Promise<void> => {
  const walker = new DocusaurusSidebarWalker(ctx, target);
  if (instance.sidebar.kind === 'none') return;
  const candidates: string[] = [];
  if (version.sidebarFile !== null) candidates.push(version.sidebarFile);
  else if (instance.sidebar.kind === 'file') {
    const base = siteRelative(ctx, siteDir, instance.sidebar.path, configFile);
    if (base !== null) candidates.push(...SIDEBAR_EXTENSIONS.map((ext) => `${base}${ext}`));
  } else if (instance.sidebar.kind === 'conventional') {
    candidates.push(...CONVENTIONAL_SIDEBARS.map((name) => joinUrl(siteDir, name)));
  }
  for (const file of candidates) {
    const read = await ctx.readConfig(file);
    if (read.status === 'missing') continue;
    if (read.status === 'ok') await walker.sidebars(read.value, file);
    else await walker.autogenerated('', null, file, 0);
    return;
  }
  if (instance.sidebar.kind === 'file' && version.sidebarFile === null)
    ctx.warn(
      configFile,
      undefined,
      `sidebar file "${instance.sidebar.path}" not found; docs are listed in folder order`,
    );
  await walker.autogenerated('', null, configFile, 0);
};
