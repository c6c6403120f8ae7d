import path from 'node:path';
import { type ContainedFolder, MAX_PAGE_FILE_BYTES } from '../contained-file.ts';
import { FRONT_MATTER } from '../front-matter.ts';
import { MAX_PAGE_EXPANDED_CHARS, MAX_SNIPPET_DEPTH } from '../ingest-limits.ts';
import type { Warning } from '../types.ts';

/*
 * VitePress' Markdown file inclusion, `<!--@include: ./parts/setup.md-->`, as its `processIncludes`
 * (VitePress 1.6.4, dist/node) does it: a text substitution before Markdown is read, so an included
 * file's headings, lists and code become the page's own. A path is relative to the including file;
 * `@/` (or `@`) starts at the site's `srcDir`. `#region` keeps the lines between a region's markers,
 * `{3,10}` a range of lines (1-based, inclusive); a Markdown file included whole loses its front matter.
 * Included text is expanded again, so includes nest.
 */

/** The directive, anywhere in the text (VitePress replaces inside code fences too). */
const INCLUDE = /<!--\s*@include:\s*(.*?)\s*-->/g;
const REGION = /(#[\w-]+)/;
const RANGE = /\{(\d*),(\d*)\}$/;

interface IncludeSpec {
  /** Relative to the docs root, normalized; null when the path leads out of the docs folder. */
  file: string | null;
  written: string;
  region: string | null;
  range: { start: number | undefined; end: number | undefined } | null;
}

const parseSpec = (fromFile: string, written: string, sourceRoot: string): IncludeSpec => {
  let target = written;
  const range = RANGE.exec(target);
  const region = REGION.exec(target);
  if (region !== null || range !== null)
    target = target.slice(0, target.length - (region?.[0].length ?? 0) - (range?.[0].length ?? 0));
  const joined = target.startsWith('@')
    ? path.posix.join(sourceRoot, target.slice(target[1] === '/' ? 2 : 1))
    : path.posix.join(path.posix.dirname(fromFile), target);
  const normalized = path.posix.normalize(joined);
  const outside = normalized === '..' || normalized.startsWith('../') || path.posix.isAbsolute(normalized);
  return {
    file: outside || normalized === '.' ? null : normalized,
    written,
    region: region?.[0].slice(1) ?? null,
    range:
      range === null
        ? null
        : {
            start: range[1] ? Number.parseInt(range[1], 10) : undefined,
            end: range[2] ? Number.parseInt(range[2], 10) : undefined,
          },
  };
};

/**
 * The files `source`'s include directives name, in the order written (null for one that leads out of
 * the docs folder): what a page's content hash must cover besides its own text (import-closure.ts).
 */
export const includedFiles = (fromFile: string, source: string, sourceRoot: string): (string | null)[] => {
  if (!source.includes('@include')) return [];
  const found: (string | null)[] = [];
  for (const match of source.matchAll(INCLUDE)) {
    const written = match[1] ?? '';
    if (written !== '') found.push(parseSpec(fromFile, written, sourceRoot).file);
  }
  return found;
};

/** Region markers VitePress' `findRegion` knows (`// #region name`, `<!-- #region name -->`, …). */
const REGION_MARKERS = [
  /^\/\/ ?#?((?:end)?region) ([\w*-]+)$/,
  /^\/\* ?#((?:end)?region) ([\w*-]+) ?\*\/$/,
  /^#pragma ((?:end)?region) ([\w*-]+)$/,
  /^<!-- #?((?:end)?region) ([\w*-]+) -->$/,
  /^#((?:End )Region) ([\w*-]+)$/,
  /^::#((?:end)region) ([\w*-]+)$/,
  /^# ?((?:end)?region) ([\w*-]+)$/,
];

const isMarker = (line: string, marker: RegExp, name: string, end: boolean): boolean => {
  const [full, tag, found] = marker.exec(line.trim()) ?? [];
  return (
    full !== undefined &&
    tag !== undefined &&
    found === name &&
    (end ? /^[Ee]nd ?[rR]egion$/ : /^[rR]egion$/).test(tag)
  );
};

/** The lines of region `name` (markers excluded); as VitePress, all lines when it has no such region. */
const regionLines = (lines: string[], name: string): string[] => {
  let marker: RegExp | null = null;
  let start = -1;
  for (const [at, line] of lines.entries()) {
    if (marker === null) {
      marker = REGION_MARKERS.find((m) => isMarker(line, m, name, false)) ?? null;
      if (marker !== null) start = at + 1;
    } else if (isMarker(line, marker, name, true)) return lines.slice(start, at);
  }
  // An unclosed region runs to the end, as `slice(start, undefined)` does in VitePress.
  return marker === null ? lines : lines.slice(start);
};

const selected = (text: string, spec: IncludeSpec): string => {
  let content = text;
  if (spec.region !== null) content = regionLines(content.split(/\r?\n/), spec.region).join('\n');
  if (spec.range !== null) {
    const { start, end } = spec.range;
    content = content
      .split(/\r?\n/)
      .slice(start === undefined ? undefined : start - 1, end)
      .join('\n');
  }
  if (spec.region === null && spec.range === null && /\.md$/i.test(spec.file ?? ''))
    content = content.replace(FRONT_MATTER, '');
  return content;
};

/**
 * `source` with its include directives replaced by what they name, nested includes too, and the files
 * included (each once, in the order first met); a directive
 * whose file is missing, unreadable, outside the docs folder, part of a cycle, deeper than
 * `MAX_SNIPPET_DEPTH` or past `MAX_PAGE_EXPANDED_CHARS` is left as written (an HTML comment, which shows
 * nothing) with a warning on `file`.
 */
export const expandIncludes = async (
  folder: ContainedFolder,
  file: string,
  source: string,
  sourceRoot: string,
  warnings: Warning[],
): Promise<{ text: string; files: string[] }> => {
  const files = new Set<string>();
  if (!source.includes('@include')) return { text: source, files: [] };
  // The expanded page's length, kept exact: each include adds its selected text and takes its directive
  // away. Checked before an include's own includes are expanded, so nesting cannot multiply past it.
  let length = source.length;
  const expand = async (text: string, from: string, chain: string[]): Promise<string> => {
    const parts: string[] = [];
    let last = 0;
    for (const match of text.matchAll(INCLUDE)) {
      const written = match[1] ?? '';
      if (written === '') continue;
      parts.push(text.slice(last, match.index));
      last = match.index + match[0].length;
      const spec = parseSpec(from, written, sourceRoot);
      const refuse = (why: string): void => {
        warnings.push({ file, message: `include "${written}" in ${from} ${why}; left out` });
        parts.push(match[0]);
      };
      if (spec.file === null) {
        refuse('leads out of the docs folder');
        continue;
      }
      if (chain.includes(spec.file)) {
        refuse(`makes a cycle (${[...chain, spec.file].join(' → ')})`);
        continue;
      }
      if (chain.length > MAX_SNIPPET_DEPTH) {
        refuse(`is nested more than ${MAX_SNIPPET_DEPTH} deep (MAX_SNIPPET_DEPTH)`);
        continue;
      }
      const read = await folder.readText(spec.file, MAX_PAGE_FILE_BYTES);
      if (!read.ok) {
        refuse(read.missing ? `names ${spec.file}, which does not exist` : `cannot be read (${read.reason})`);
        continue;
      }
      const content = selected(read.text, spec);
      if (length - match[0].length + content.length > MAX_PAGE_EXPANDED_CHARS) {
        refuse(
          `would make the page longer than ${MAX_PAGE_EXPANDED_CHARS} characters (MAX_PAGE_EXPANDED_CHARS)`,
        );
        continue;
      }
      length += content.length - match[0].length;
      files.add(spec.file);
      parts.push(await expand(content, spec.file, [...chain, spec.file]));
    }
    parts.push(text.slice(last));
    return parts.join('');
  };
  const text = await expand(source, file, [file]);
  return { text, files: [...files] };
};
