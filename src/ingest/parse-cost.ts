import { MAX_PAGE_LINES, MAX_PAGE_MARKUP_CHARS, MAX_TABLE_CELLS } from './ingest-limits.ts';
import { countTableCells } from './table-cells.ts';

const MARKUP = new Set(['*', '_', '`', '[', '<', '|', '#']);

const countCost = (source: string): { lines: number; markup: number } => {
  let lines = 0;
  let markup = 0;
  let blank = true;
  for (let i = 0; i < source.length; i++) {
    const char = source[i] as string;
    if (char === '\n') {
      if (!blank) lines++;
      blank = true;
    } else if (blank && char !== ' ' && char !== '\t' && char !== '\r') blank = false;
    if (MARKUP.has(char)) markup++;
  }
  return { lines: blank ? lines : lines + 1, markup };
};

/** Characters that start Markdown or MDX syntax in `source`: what a parse's worst case grows with. */
export const markupCharacters = (source: string): number => countCost(source).markup;

/**
 * Why parsing `source` would cost more than a page may (ingest-limits.ts), or null: counted in one pass
 * over the text, before the parser builds anything.
 */
export const parseCostProblem = (source: string): string | null => {
  const { lines, markup } = countCost(source);
  if (lines > MAX_PAGE_LINES) return `more than ${MAX_PAGE_LINES} non-blank lines (MAX_PAGE_LINES)`;
  if (markup > MAX_PAGE_MARKUP_CHARS)
    return `more than ${MAX_PAGE_MARKUP_CHARS} markup characters (MAX_PAGE_MARKUP_CHARS)`;
  if (countTableCells(source) > MAX_TABLE_CELLS)
    return `tables hold more than ${MAX_TABLE_CELLS} cells (MAX_TABLE_CELLS)`;
  return null;
};
