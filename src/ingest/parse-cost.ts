import {
  MAX_LINE_INDENT,
  MAX_LINE_NESTING,
  MAX_NESTED_MARKERS,
  MAX_PAGE_INDENT_COLUMNS,
  MAX_PAGE_LINES,
  MAX_PAGE_MARKUP_CHARS,
  MAX_SETEXT_HEADINGS,
  MAX_TABLE_CELLS,
} from './ingest-limits.ts';
import { countTableCells } from './table-cells.ts';

/** Characters that open constructs: emphasis, code, links, tags, tables, headings, escapes, entities. */
const MARKUP = new Set(['*', '_', '`', '[', '<', '|', '#', '\\', '&']);
/** What the page view counts (section-html.ts): the constructs its renderer handles. */
const RENDERED_MARKUP = new Set(['*', '_', '`', '[', '<', '|', '#']);
/** A setext heading's underline (`===` or `---` under a line of text). */
const UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
/** A thematic break (`***`, `- - -`): no list, however many markers. */
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
/** Block quote and list markers opening a line, one after another (`> > 1. - x`, `>>>`). */
const CONTAINER_MARKER = /(?:>|(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$))[ \t]*/y;
/** A code fence, after any container markers (`> ```py`): its character and length. */
const FENCE = /^(`{3,}|~{3,})/;

interface Cost {
  lines: number;
  markup: number;
  setext: number;
  nesting: number;
  /** List markers past each line's first, over all lines (`- - x` has one; `> - x` none). */
  nestedMarkers: number;
  /** The deepest indentation of a line, and all lines' together, in columns (a tab to the next 4). */
  indent: number;
  indentColumns: number;
}

const indentOf = (line: string): number => {
  let columns = 0;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === ' ') columns++;
    else if (char === '\t') columns += 4 - (columns % 4);
    else break;
  }
  return columns;
};

/**
 * Block quotes and lists a line opens (counted up to one past the limit), how many of them are lists,
 * and where its text starts.
 */
const containersOf = (line: string): { depth: number; lists: number; rest: number } => {
  let depth = 0;
  let lists = 0;
  CONTAINER_MARKER.lastIndex = line.length - line.trimStart().length;
  let rest = CONTAINER_MARKER.lastIndex;
  while (depth <= MAX_LINE_NESTING && CONTAINER_MARKER.test(line)) {
    depth++;
    if (line[rest] !== '>') lists++;
    rest = CONTAINER_MARKER.lastIndex;
  }
  return { depth, lists, rest };
};

/**
 * The cost is what the parser builds; code is text to it. So the nesting, underline and indentation
 * counts skip fenced code (a Python session's `>>>` lines are no block quotes), lines indented as code,
 * and thematic breaks. Code is recognised loosely: a line the counts skip but the parser reads as
 * markup is still bounded by the parse time limit (page-loader-pool.ts), only no longer caught early.
 */
const countCost = (source: string): Cost => {
  const cost: Cost = {
    lines: 0,
    markup: 0,
    setext: 0,
    nesting: 0,
    nestedMarkers: 0,
    indent: 0,
    indentColumns: 0,
  };
  let previousBlank = true;
  let fence: string | null = null;
  let start = 0;
  for (let i = 0; i <= source.length; i++) {
    const char = source[i];
    // A line ends at LF, CR or CRLF, as CommonMark reads it.
    const end = i === source.length || char === '\n' || char === '\r';
    if (!end) {
      if (char !== undefined && MARKUP.has(char)) cost.markup++;
      continue;
    }
    const line = source.slice(start, i);
    const blank = line.trim() === '';
    if (!blank) {
      cost.lines++;
      const { depth, lists, rest } = containersOf(line);
      const marker = FENCE.exec(line.slice(rest))?.[1];
      if (fence !== null) {
        if (
          marker !== undefined &&
          marker[0] === fence[0] &&
          marker.length >= fence.length &&
          line.slice(rest + marker.length).trim() === ''
        )
          fence = null;
      } else if (marker !== undefined) {
        fence = marker;
      } else {
        const indent = indentOf(line);
        cost.indent = Math.max(cost.indent, indent);
        cost.indentColumns += indent;
        if (!previousBlank && UNDERLINE.test(line)) cost.setext++;
        if (indent < 4 && !THEMATIC_BREAK.test(line)) {
          cost.nesting = Math.max(cost.nesting, depth);
          // A list opened inside a list on one line costs the parser more with every one before it;
          // quotes around a list do not (2,000 lines of `> - x`: linear).
          if (lists > 1) cost.nestedMarkers += lists - 1;
        }
      }
    }
    previousBlank = blank;
    if (char === '\r' && source[i + 1] === '\n') i++;
    start = i + 1;
  }
  return cost;
};

/** Characters of `source` that start constructs the page view renders (section-html.ts bounds them). */
export const markupCharacters = (source: string): number => {
  let count = 0;
  for (let i = 0; i < source.length; i++) if (RENDERED_MARKUP.has(source[i] as string)) count++;
  return count;
};

/**
 * Why parsing `source` would cost more than a page may (ingest-limits.ts), or null: counted in one pass
 * over the text, before the parser builds anything.
 */
export const parseCostProblem = (source: string): string | null => {
  const { lines, markup, setext, nesting, nestedMarkers, indent, indentColumns } = countCost(source);
  if (lines > MAX_PAGE_LINES) return `more than ${MAX_PAGE_LINES} non-blank lines (MAX_PAGE_LINES)`;
  if (markup > MAX_PAGE_MARKUP_CHARS)
    return `more than ${MAX_PAGE_MARKUP_CHARS} markup characters (MAX_PAGE_MARKUP_CHARS)`;
  if (setext > MAX_SETEXT_HEADINGS)
    return `more than ${MAX_SETEXT_HEADINGS} underlined (setext) headings (MAX_SETEXT_HEADINGS)`;
  if (nesting > MAX_LINE_NESTING)
    return `a line opens more than ${MAX_LINE_NESTING} nested lists or block quotes (MAX_LINE_NESTING)`;
  if (nestedMarkers > MAX_NESTED_MARKERS)
    return `lines open more than ${MAX_NESTED_MARKERS} nested lists or block quotes together (MAX_NESTED_MARKERS)`;
  if (indent > MAX_LINE_INDENT)
    return `a line is indented more than ${MAX_LINE_INDENT} columns (MAX_LINE_INDENT)`;
  if (indentColumns > MAX_PAGE_INDENT_COLUMNS)
    return `lines are indented more than ${MAX_PAGE_INDENT_COLUMNS} columns together (MAX_PAGE_INDENT_COLUMNS)`;
  if (countTableCells(source) > MAX_TABLE_CELLS)
    return `tables hold more than ${MAX_TABLE_CELLS} cells (MAX_TABLE_CELLS)`;
  return null;
};
