import type { FrameworkContext } from './framework-context.ts';
import { globMatcher } from './glob.ts';
import { MAX_DOCS_INSTANCES, MAX_LANGUAGES } from './limits.ts';
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

export type SidebarSource =
  /** `sidebarPath` names a file (relative to the site folder). */
  | { kind: 'file'; path: string }
  /** `sidebarPath` not set: Docusaurus generates one sidebar from the folder. */
  | { kind: 'generated' }
  /** `sidebarPath: false`: no sidebar; docs are still published. */
  | { kind: 'none' }
  /** The docs options could not be read: the conventional `sidebars.*` file, if any. */
  | { kind: 'conventional' };

export interface DocsInstance {
  pluginId: string;
  /** Content folder relative to the site folder (`docs`, `../docs`). */
  path: string;
  routeBasePath: string;
  sidebar: SidebarSource;
  lastVersion: string | undefined;
  includeCurrentVersion: boolean;
  onlyIncludeVersions: string[] | undefined;
  /** The `exclude` globs read (paths under the content folder that are no docs), beside the `_` rule. */
  exclude: ((source: string) => boolean)[];
  /** `versions: { current: { label: 'Next', path: 'next' } }`. */
  versionOptions: Map<string, { label?: string; path?: string }>;
}

export interface DocusaurusConfig {
  title: string | null;
  instances: DocsInstance[];
  defaultLocale: string;
  locales: string[];
  /** `i18n.localeConfigs.<locale>.path`, when it differs from the locale. */
  localePaths: Map<string, string>;
  /** `markdown.anchors.maintainCase`: heading ids keep the heading's case. */
  anchorsMaintainCase?: boolean;
}

const PATH_CALLS = new Set([
  'require.resolve',
  'path.resolve',
  'path.join',
  'fileURLToPath',
  'url.fileURLToPath',
  'URL',
]);

/**
 * A file path written as a string or through the usual helpers (`require.resolve('./sidebars.js')`,
 * `fileURLToPath(new URL('./sidebars.js', import.meta.url))`, `path.resolve(__dirname, 'sidebars.js')`):
 * the last string argument, which is the path relative to the config's folder.
 */
export const staticPath = (value: StaticValue | undefined): string | undefined => {
  if (value?.kind === 'string') return value.value;
  if (value?.kind !== 'call' || !PATH_CALLS.has(value.callee)) return undefined;
  for (let i = value.args.length - 1; i >= 0; i--) {
    const found = staticPath(value.args[i]);
    if (found !== undefined) return found;
  }
  return undefined;
};

/** Docusaurus' default `exclude`, often copied into configs. */
const DEFAULT_EXCLUDE = new Set([
  '**/_*.{js,jsx,ts,tsx,md,mdx}',
  '**/_*/**',
  '**/*.test.{js,jsx,ts,tsx}',
  '**/__tests__/**',
]);

const defaultInstance = (pluginId: string): DocsInstance => ({
  pluginId,
  path: 'docs',
  routeBasePath: 'docs',
  sidebar: { kind: 'generated' },
  lastVersion: undefined,
  includeCurrentVersion: true,
  onlyIncludeVersions: undefined,
  exclude: [],
  versionOptions: new Map(),
});

/** The fallback when the config (or its docs options) cannot be read: Docusaurus' defaults. */
export const conventionalInstance = (): DocsInstance => ({
  ...defaultInstance('default'),
  sidebar: { kind: 'conventional' },
});

const isDocsPlugin = (name: string): boolean =>
  name === '@docusaurus/plugin-content-docs' ||
  name === 'content-docs' ||
  name === 'docusaurus-plugin-content-docs';

const isClassicPreset = (name: string): boolean =>
  name === 'classic' || name === '@docusaurus/preset-classic' || name === 'docusaurus-preset-classic';

/** Reads docusaurus.config.* (already a StaticValue) into what navigation needs, warning on what is opaque. */
export const readDocusaurusConfig = (
  ctx: FrameworkContext,
  file: string,
  exported: StaticValue,
): DocusaurusConfig => {
  const config = unwrapCall(exported, ['defineConfig']);
  const result: DocusaurusConfig = {
    title: null,
    instances: [],
    defaultLocale: 'en',
    locales: [],
    localePaths: new Map(),
  };
  const unreadable = (value: StaticValue, what: string, fallback: string): void =>
    ctx.warn(
      file,
      value.line,
      `${what} is ${describe(value)}, which cannot be read without running the config; ${fallback}`,
    );

  if (!asObject(config)) {
    if (config) unreadable(config, 'the config', 'using Docusaurus defaults (docs/, sidebars file if any)');
    result.instances.push(conventionalInstance());
    return result;
  }
  result.title = asString(field(config, 'title')) ?? null;
  if (asBoolean(field(field(field(config, 'markdown'), 'anchors'), 'maintainCase')) === true)
    result.anchorsMaintainCase = true;

  const instanceOf = (
    options: StaticValue | undefined,
    pluginId: string,
    where: string,
  ): DocsInstance | null => {
    if (options === undefined) return defaultInstance(pluginId);
    if (asBoolean(options) === false) return null;
    const object = asObject(options);
    if (!object) {
      unreadable(options, where, 'using the default docs options');
      return conventionalInstance();
    }
    const instance = defaultInstance(asString(field(object, 'id')) ?? pluginId);
    const stringOption = (key: 'path' | 'routeBasePath' | 'lastVersion'): string | undefined => {
      const value = field(object, key);
      if (value === undefined) return undefined;
      const text = key === 'path' ? staticPath(value) : asString(value);
      if (text === undefined) unreadable(value, `docs option "${key}"`, 'using the default');
      return text;
    };
    instance.path = stringOption('path') ?? instance.path;
    instance.routeBasePath = stringOption('routeBasePath') ?? instance.routeBasePath;
    instance.lastVersion = stringOption('lastVersion');
    const sidebarPath = field(object, 'sidebarPath');
    if (sidebarPath !== undefined) {
      const text = staticPath(sidebarPath);
      if (asBoolean(sidebarPath) === false) instance.sidebar = { kind: 'none' };
      else if (text !== undefined) instance.sidebar = { kind: 'file', path: text };
      else {
        unreadable(sidebarPath, 'docs option "sidebarPath"', 'looking for a sidebars file beside the config');
        instance.sidebar = { kind: 'conventional' };
      }
    }
    const exclude = field(object, 'exclude');
    if (exclude !== undefined) {
      const patterns = asArray(exclude);
      if (!patterns) unreadable(exclude, 'docs option "exclude"', 'no file is excluded by it');
      for (const item of patterns ?? []) {
        const pattern = asString(item);
        const matcher = pattern === undefined ? null : globMatcher(pattern);
        if (matcher) instance.exclude.push(matcher);
        // Docusaurus' own defaults use braces; what they match (`_` files, tests) is left out anyway.
        else if (!pattern || !DEFAULT_EXCLUDE.has(pattern))
          ctx.warn(
            file,
            item.line,
            `docs option "exclude" entry ${pattern === undefined ? describe(item) : `"${pattern}"`} is not read; ignored`,
          );
      }
    }
    if (asBoolean(field(object, 'includeCurrentVersion')) === false) instance.includeCurrentVersion = false;
    const only = asArray(field(object, 'onlyIncludeVersions'));
    if (only) instance.onlyIncludeVersions = only.map(asString).filter((v): v is string => v !== undefined);
    const versions = asObject(field(object, 'versions'));
    for (const [name, options] of versions?.entries ?? []) {
      const label = asString(field(options, 'label'));
      const path = asString(field(options, 'path'));
      instance.versionOptions.set(name, {
        ...(label ? { label } : {}),
        ...(path !== undefined ? { path } : {}),
      });
    }
    return instance;
  };

  const entryOf = (item: StaticValue): { name: string | undefined; options: StaticValue | undefined } => {
    const pair = asArray(item);
    if (pair) return { name: staticPath(pair[0]) ?? asString(pair[0]), options: pair[1] };
    return { name: asString(item), options: undefined };
  };

  // `docs: false` turns the docs off on purpose; anything else without a readable instance gets defaults.
  let docsDisabled = false;
  const presets = field(config, 'presets');
  if (presets !== undefined && !asArray(presets))
    unreadable(presets, '"presets"', 'its docs are read with the default options');
  for (const preset of asArray(presets) ?? []) {
    const { name, options } = entryOf(preset);
    if (name === undefined) {
      unreadable(preset, 'a preset', 'if it holds docs, they are read with the default options');
      continue;
    }
    if (!isClassicPreset(name)) continue;
    if (options !== undefined && !asObject(options)) {
      unreadable(options, `preset "${name}" options`, 'using the default docs options');
      result.instances.push(conventionalInstance());
      continue;
    }
    const instance = instanceOf(field(options, 'docs'), 'default', `preset "${name}" docs options`);
    if (instance) result.instances.push(instance);
    else docsDisabled = true;
  }

  const plugins = field(config, 'plugins');
  if (plugins !== undefined && !asArray(plugins))
    unreadable(plugins, '"plugins"', 'docs plugins in it are not read');
  for (const plugin of asArray(plugins) ?? []) {
    const { name, options } = entryOf(plugin);
    if (name === undefined || !isDocsPlugin(name)) continue;
    const instance = instanceOf(options, 'default', `plugin "${name}" options`);
    if (instance) result.instances.push(instance);
  }
  if (result.instances.length > MAX_DOCS_INSTANCES) {
    ctx.warn(file, undefined, `more than ${MAX_DOCS_INSTANCES} docs plugins; the rest are ignored`);
    result.instances.length = MAX_DOCS_INSTANCES;
  }
  if (result.instances.length === 0 && !docsDisabled) {
    ctx.warn(
      file,
      undefined,
      'no readable classic preset or docs plugin; reading docs/ with the default options',
    );
    result.instances.push(conventionalInstance());
  }

  const i18n = field(config, 'i18n');
  if (i18n !== undefined) {
    const object = asObject(i18n);
    if (!object) unreadable(i18n, '"i18n"', 'docs are read in the default locale only');
    const defaultLocale = asString(field(object, 'defaultLocale'));
    if (defaultLocale) result.defaultLocale = defaultLocale;
    const locales = field(object, 'locales');
    if (locales !== undefined && !asArray(locales))
      unreadable(locales, '"i18n.locales"', 'translations are not read');
    for (const locale of asArray(locales) ?? []) {
      const name = asString(locale);
      if (name === undefined) unreadable(locale, 'a locale', 'it is ignored');
      else if (!result.locales.includes(name)) result.locales.push(name);
    }
    if (result.locales.length > MAX_LANGUAGES) {
      ctx.warn(file, locales?.line, `more than ${MAX_LANGUAGES} locales; the rest are ignored`);
      result.locales.length = MAX_LANGUAGES;
    }
    for (const [locale, options] of asObject(field(object, 'localeConfigs'))?.entries ?? []) {
      const path = asString(field(options, 'path'));
      if (path !== undefined) result.localePaths.set(locale, path);
    }
  }
  return result;
};
