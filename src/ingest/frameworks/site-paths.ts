import path from 'node:path';
import type { FrameworkContext } from './framework-context.ts';

/**
 * A folder or file a config names (relative to the config's site folder) as a path relative to the docs
 * root, or, with a warning, when it is absolute or leads out of the root: `fallback` (the framework's
 * default for the setting) when one is given, else null. Everything read must stay inside the folder
 * Docent was given.
 */
export const siteRelative = (
  ctx: FrameworkContext,
  siteDir: string,
  written: string,
  configFile: string,
  fallback?: string,
): string | null => {
  const clean = written.trim().replace(/\\/g, '/');
  const joined = path.posix.normalize(path.posix.join(siteDir === '' ? '.' : siteDir, clean));
  const absolute = path.posix.isAbsolute(clean) || /^[a-z]:\//i.test(clean);
  if (absolute || joined === '..' || joined.startsWith('../')) {
    const problem = absolute
      ? `path "${written}" is absolute; only paths inside the docs folder are read`
      : `path "${written}" leads outside the docs folder`;
    const instead = fallback === undefined ? 'ignored' : `"${fallback}" is used, the default`;
    ctx.warn(configFile, undefined, `${problem}; ${instead}`);
    return fallback === undefined ? null : siteRelative(ctx, siteDir, fallback, configFile);
  }
  return joined === '.' ? '' : joined.replace(/\/+$/, '');
};

/** A sidebar or nav link to another site (`https:`, `mailto:`, `//host`): not a page of this one. */
export const isExternalLink = (link: string): boolean => /^([a-z][a-z0-9+.-]*:|\/\/)/i.test(link);
