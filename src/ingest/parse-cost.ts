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
/** A setext heading's underline (`===` or `---` under a line of text). */
const UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
/** Block quote and list markers opening a line, one after another (`> > 1. - x`, `>>>`). */
const CONTAINER_MARKER = /(?:>|(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$))[ \t]*/y;

interface Cost {
  lines: number;
  markup: number;
  setext: number;
  nesting: number;
  /** Markers past each line's first, over all lines (`- - x` has one). */
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

/** Block quotes and lists a line opens, counted up to one past the limit. */
const nestingOf = (line: string): number => {
  let depth = 0;
  CONTAINER_MARKER.lastIndex = line.length - line.trimStart().length;
  while (depth <= MAX_LINE_NESTING && CONTAINER_MARKER.test(line)) depth++;
  return depth;
};

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
      if (!previousBlank && UNDERLINE.test(line)) cost.setext++;
      const nesting = nestingOf(line);
      cost.nesting = Math.max(cost.nesting, nesting);
      if (nesting > 1) cost.nestedMarkers += nesting - 1;
      const indent = indentOf(line);
      cost.indent = Math.max(cost.indent, indent);
      cost.indentColumns += indent;
    }
    previousBlank = blank;
    if (char === '\r' && source[i + 1] === '\n') i++;
    start = i + 1;
  }
  return cost;
};

/** Characters that start Markdown or MDX syntax in `source`: what a parse's worst case grows with. */
export const markupCharacters = (source: string): number => countCost(source).markup;

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
