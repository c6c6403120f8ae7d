/**
 * How ingestion stores a table: one row a line, its cells joined by this (mdx-to-sections.ts). Search and
 * the built-in answerer read rows as text; the page view writes them back as a table (pages/stored-tables.ts).
 */
export const STORED_CELL_SEPARATOR = ' | ';

const DELIMITER_CELL = /^:?-+:?$/;

const stripQuote = (line: string): string => {
  let start = 0;
  while (start < line.length && /[\s>]/.test(line[start] ?? '')) start++;
  return line.slice(start).trimEnd();
};

/**
 * A GFM delimiter row (`| --- | :-: |`) after any block-quote markers and indentation. Split by hand:
 * a regular expression with adjacent optional blanks backtracks quadratically on a long line.
 */
const isDelimiterRow = (line: string): boolean => {
  const row = stripQuote(line);
  if (!row.includes('|')) return false;
  const inner = row.replace(/^\|/, '').replace(/\|$/, '');
  return inner.split('|').every((cell) => DELIMITER_CELL.test(cell.trim()));
};

/** `| a | b |`, `a | b` and `| a | b` are two cells each. */
const cellsIn = (line: string): number => {
  const row = stripQuote(line);
  let pipes = 0;
  for (let i = row.indexOf('|'); i !== -1; i = row.indexOf('|', i + 1)) pipes++;
  if (row.startsWith('|')) pipes--;
  if (row.length > 1 && row.endsWith('|')) pipes--;
  return Math.max(1, pipes + 1);
};

/**
 * Table cells in a Markdown source, counted without parsing: for each delimiter row, the cells of the
 * header row above it and of every following row up to the first line without a `|`. An over-count (a delimiter-like
 * line in a code block) only makes the limit stricter; it never lets a wider table through.
 */
export const countTableCells = (source: string): number => {
  // LF, CR or CRLF: a page of CR-only lines is as many lines to the parser.
  const lines = source.split(/\r\n|\r|\n/);
  let cells = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (!line.includes('-') || !isDelimiterRow(line)) continue;
    cells += cellsIn(lines[i - 1] ?? '');
    let row = i + 1;
    for (; row < lines.length && (lines[row] ?? '').includes('|'); row++) cells += cellsIn(lines[row] ?? '');
    i = row - 1;
  }
  return cells;
};
