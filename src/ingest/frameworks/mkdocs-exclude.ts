import path from 'node:path';
import type { FrameworkContext } from './framework-context.ts';
import { globMatcher } from './glob.ts';
import { asString, describe, field, type StaticValue } from './static-value.ts';

/** What MkDocs leaves out of every build before `exclude_docs` is applied (`!` patterns can take them back). */
const DEFAULT_EXCLUDES = ['.*', '/templates/'];

interface Rule {
  negate: boolean;
  matches: (src: string) => boolean;
}

/** The folders holding `src`: `a/b/c.md` → `a`, `a/b`. */
const foldersOf = (src: string): string[] => {
  const parts = src.split('/').slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
};

/**
 * One line of a gitignore-style list as MkDocs reads it (pathspec): `!` takes files back, a trailing `/`
 * matches folders only, a `/` anywhere else anchors the pattern at docs_dir, otherwise it matches at any
 * depth; a pattern matching a folder matches everything in it. Null for what the glob reader cannot read.
 */
const gitignoreRule = (line: string): Rule | null | 'blank' => {
  let pattern = line.trim();
  if (pattern === '' || pattern.startsWith('#')) return 'blank';
  const negate = pattern.startsWith('!');
  if (negate) pattern = pattern.slice(1);
  const foldersOnly = pattern.endsWith('/');
  pattern = pattern.replace(/\/+$/, '');
  const anchored = pattern.includes('/');
  pattern = pattern.replace(/^\/+/, '');
  if (pattern === '') return 'blank';
  const glob = globMatcher(anchored ? pattern : `**/${pattern}`);
  if (!glob) return null;
  return {
    negate,
    matches: (src) => (!foldersOnly && glob(src)) || foldersOf(src).some(glob),
  };
};

/**
 * MkDocs' `exclude_docs` (with its defaults, `.*` and `/templates/`) and `draft_docs`: files MkDocs does
 * not put in the built site. Returns whether a path under docs_dir is left out; the last matching line
 * decides, as in .gitignore. A value or line that cannot be read is named in a warning and excludes nothing.
 */
export const mkdocsExclusions = (
  ctx: FrameworkContext,
  configFile: string,
  config: StaticValue | undefined,
): ((src: string) => boolean) => {
  const listOf = (key: string, defaults: readonly string[]): Rule[] => {
    const value = field(config, key);
    const text = asString(value);
    if (value !== undefined && text === undefined)
      ctx.warn(configFile, value.line, `${key} is ${describe(value)}, not a list of patterns; not applied`);
    const rules: Rule[] = [];
    for (const line of [...defaults, ...(text ?? '').split('\n')]) {
      const rule = gitignoreRule(line);
      if (rule === 'blank') continue;
      if (rule === null)
        ctx.warn(
          configFile,
          value?.line,
          `${key} pattern "${line.trim().slice(0, 200)}" is not read; ignored`,
        );
      else rules.push(rule);
    }
    return rules;
  };
  const lists = [listOf('exclude_docs', DEFAULT_EXCLUDES), listOf('draft_docs', [])];
  const decide = (rules: readonly Rule[], src: string): boolean => {
    let excluded = false;
    for (const rule of rules) if (rule.matches(src)) excluded = !rule.negate;
    return excluded;
  };
  return (src) => lists.some((rules) => decide(rules, path.posix.normalize(src)));
};
