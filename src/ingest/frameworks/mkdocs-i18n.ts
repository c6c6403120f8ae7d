import type { FrameworkContext } from './framework-context.ts';
import { asArray, asBoolean, asObject, asString, describe, field, type StaticValue } from './static-value.ts';

export interface MkDocsLanguage {
  locale: string;
  isDefault: boolean;
  structure: 'suffix' | 'folder';
  /** The language's own `nav`, when it has one. */
  nav: StaticValue | undefined;
}

export interface MkDocsI18n {
  /** The languages built, the default first. */
  languages: MkDocsLanguage[];
  /** Locales listed with `build: false`: their files are not pages in any language. */
  unbuilt: string[];
  structure: 'suffix' | 'folder';
}

const LOCALE = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]+)?$/;

/** The `i18n` entry of `plugins` (`- i18n: {...}`), if any. */
const i18nOptions = (config: StaticValue | undefined): StaticValue | undefined => {
  for (const plugin of asArray(field(config, 'plugins')) ?? []) {
    const options = asObject(plugin)?.entries.get('i18n');
    if (options !== undefined) return options;
  }
  return asObject(field(config, 'plugins'))?.entries.get('i18n');
};

/**
 * mkdocs-static-i18n's languages, in both of its config shapes: 1.x (`languages:` a list of
 * `{ locale, default, build, nav }`, `docs_structure: suffix | folder`) and 0.x (`default_language` and
 * `languages:` a mapping of locale to name). The default language comes first. Empty without the plugin.
 */
export const readMkDocsI18n = (
  ctx: FrameworkContext,
  file: string,
  config: StaticValue | undefined,
): MkDocsI18n => {
  const options = i18nOptions(config);
  if (options === undefined || options.kind === 'null')
    return { languages: [], unbuilt: [], structure: 'suffix' };
  if (!asObject(options)) {
    ctx.warn(file, options.line, `i18n plugin options are ${describe(options)}; languages are not read`);
    return { languages: [], unbuilt: [], structure: 'suffix' };
  }
  const structure = asString(field(options, 'docs_structure')) === 'folder' ? 'folder' : 'suffix';
  const defaultLanguage = asString(field(options, 'default_language'));
  const languages: MkDocsLanguage[] = [];
  const unbuilt: string[] = [];
  const add = (
    locale: string | undefined,
    isDefault: boolean,
    nav: StaticValue | undefined,
    line: number,
  ): void => {
    if (locale === undefined || !LOCALE.test(locale)) {
      ctx.warn(
        file,
        line,
        `i18n language ${locale === undefined ? 'without a readable locale' : `"${locale}" is not a locale`}; ignored`,
      );
      return;
    }
    if (languages.some((l) => l.locale === locale)) return;
    languages.push({ locale, isDefault, structure, nav });
  };
  const list = field(options, 'languages');
  for (const entry of asArray(list) ?? []) {
    const locale = asString(field(entry, 'locale'));
    // `build: false` languages are not built at all.
    if (asBoolean(field(entry, 'build')) === false) {
      if (locale !== undefined && LOCALE.test(locale)) unbuilt.push(locale);
      continue;
    }
    add(
      locale,
      asBoolean(field(entry, 'default')) === true || locale === defaultLanguage,
      field(entry, 'nav'),
      entry.line,
    );
  }
  // 0.x: the default language need not be among `languages`.
  if (defaultLanguage !== undefined && asObject(list)) add(defaultLanguage, true, undefined, list?.line ?? 0);
  for (const [locale, entry] of asObject(list)?.entries ?? [])
    add(locale, locale === defaultLanguage, field(entry, 'nav'), entry.line);
  if (languages.length > 0 && !languages.some((l) => l.isDefault)) {
    const first = languages[0];
    if (first) first.isDefault = true;
  }
  languages.sort((a, b) => Number(b.isDefault) - Number(a.isDefault));
  const built = (locale: string) => languages.some((l) => l.locale === locale);
  return { languages, unbuilt: unbuilt.filter((locale) => !built(locale)), structure };
};

/** Whether `src` (relative to `docs_dir`) is a file of one of `locales` in the plugin's `structure`. */
export const inLanguage = (
  src: string,
  locales: readonly string[],
  structure: 'suffix' | 'folder',
): boolean => {
  if (locales.length === 0) return false;
  if (structure === 'folder') return locales.includes(src.split('/')[0] ?? '');
  const suffix = /\.([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]+)?)\.md$/i.exec(src)?.[1];
  return suffix !== undefined && locales.includes(suffix);
};
