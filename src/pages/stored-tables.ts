import { FenceTracker } from '../ingest/fenced-code.ts';
import { STORED_CELL_SEPARATOR } from '../ingest/table-cells.ts';

/**
 * Ingestion stores a table as its rows, one a line, cells joined by STORED_CELL_SEPARATOR, which search
 * and the built-in answerer read as text. Shown to a reader (the page view) or an agent (Markdown pages,
 * llms-full.txt) that is a run-on paragraph, so a block of such rows is written back as a GFM table, its
 * first row the header.
 */

/** Cells a stored row has, or 0 for a line that is not one. */
function cellCount(line: string): number {
  return line.includes(STORED_CELL_SEPARATOR) ? line.split(STORED_CELL_SEPARATOR).length : 0;
}

/** The cells of each line of `text` when every line is a stored row of as many (2 or more), else 0. */
export function storedRowsWidth(text: string): number {
  const widths = new Set(text.split('\n').map(cellCount));
  const [width = 0] = widths;
  return widths.size === 1 && width >= 2 ? width : 0;
}

/**
 * `text` with every block of at least two consecutive lines that each have the same number (2 or more)
 * of ` | `-joined cells turned into a GFM table; fenced code and anything else left as it is.
 */
export function storedTablesAsGfm(text: string): string {
  if (!text.includes(STORED_CELL_SEPARATOR)) return text;
  const lines = text.split('\n');
  const out: string[] = [];
  const fences = new FenceTracker();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (fences.inFence(line)) {
      out.push(line);
      i++;
      continue;
    }
    const cells = cellCount(line);
    let end = i + 1;
    while (cells >= 2 && end < lines.length && cellCount(lines[end] as string) === cells) end++;
    if (cells < 2 || end - i < 2) {
      out.push(line);
      i++;
      continue;
    }
    // A table must stand apart from the text before it, or GFM reads its header as that paragraph's.
    if (out.length > 0 && (out[out.length - 1] as string).trim() !== '') out.push('');
    // A pipe inside a cell (`a|b` in code) would split it: GFM reads it as a cell only when escaped.
    // Ingestion escapes those it stores (mdx-to-sections.ts); pages stored before it did may hold bare ones.
    const row = (stored: string) =>
      `| ${stored
        .trim()
        .split(STORED_CELL_SEPARATOR)
        .map((cell) => cell.replace(/\\?\|/g, '\\|'))
        .join(STORED_CELL_SEPARATOR)} |`;
    out.push(row(line), `|${' --- |'.repeat(cells)}`);
    for (let r = i + 1; r < end; r++) out.push(row(lines[r] as string));
    if (end < lines.length && (lines[end] as string).trim() !== '') out.push('');
    i = end;
  }
  return out.join('\n');
}
