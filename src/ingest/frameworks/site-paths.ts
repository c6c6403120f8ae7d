import path from 'node:path';
import type { FrameworkContext } from './framework-context.ts';

/**
 * A folder or file a config names (relative to the config's site folder) as a path relative to the docs
 * root, or null with a warning when it is absolute or leads out of the root: everything read must stay
 * inside the folder Docent was given.
 */
export const siteRelative = (
  ctx: FrameworkContext,
  siteDir: string,
  written: string,
  configFile: string,
): string | null => {
  const clean = written.trim().replace(/\\/g, '/');
  if (path.posix.isAbsolute(clean) || /^[a-z]:\//i.test(clean)) {
    ctx.warn(
      configFile,
      undefined,
      `path "${written}" is absolute; only paths inside the docs folder are read`,
    );
    return null;
  }
  const joined = path.posix.normalize(path.posix.join(siteDir === '' ? '.' : siteDir, clean));
  if (joined === '..' || joined.startsWith('../')) {
    ctx.warn(configFile, undefined, `path "${written}" leads outside the docs folder; ignored`);
    return null;
  }
  return joined === '.' ? '' : joined.replace(/\/+$/, '');
};

/** A sidebar or nav link to another site (`https:`, `mailto:`, `//host`): not a page of this one. */
export const isExternalLink = (link: string): boolean => /^([a-z][a-z0-9+.-]*:|\/\/)/i.test(link);
