import { describe, expect, it } from 'vitest';
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
import { parseCostProblem } from './parse-cost.ts';

const lines = (n: number, line: (i: number) => string): string =>
  Array.from({ length: n }, (_, i) => line(i)).join('\n');
const limit = (source: string): string | undefined =>
  /\((MAX_\w+)\)$/.exec(parseCostProblem(source) ?? '')?.[1];

/** Each shape the parser is slow on, at its limit (parsed) and one past it (skipped before parsing). */
const SHAPES: [name: string, at: string, over: string][] = [
  [
    'MAX_SETEXT_HEADINGS',
    'Title\n===\n\n'.repeat(MAX_SETEXT_HEADINGS),
    'Title\n===\n\n'.repeat(MAX_SETEXT_HEADINGS + 1),
  ],
  ['MAX_LINE_NESTING', `${'> '.repeat(MAX_LINE_NESTING)}x`, `${'>'.repeat(MAX_LINE_NESTING + 1)}x`],
  ['MAX_LINE_NESTING', `${'1. '.repeat(MAX_LINE_NESTING)}x`, `${'1. '.repeat(MAX_LINE_NESTING + 1)}x`],
  [
    'MAX_NESTED_MARKERS',
    lines(MAX_NESTED_MARKERS, () => '- - x'),
    lines(MAX_NESTED_MARKERS + 1, () => '- - x'),
  ],
  ['MAX_LINE_INDENT', `- a\n${' '.repeat(MAX_LINE_INDENT)}- x`, `- a\n${' '.repeat(MAX_LINE_INDENT + 1)}- x`],
  // A tab indents to the next multiple of four columns.
  [
    'MAX_LINE_INDENT',
    `- a\n${'\t'.repeat(MAX_LINE_INDENT / 4)}x`,
    `- a\n${'\t'.repeat(MAX_LINE_INDENT / 4)} x`,
  ],
  [
    'MAX_PAGE_INDENT_COLUMNS',
    lines(MAX_PAGE_INDENT_COLUMNS / 100, () => `${' '.repeat(100)}x`),
    lines(MAX_PAGE_INDENT_COLUMNS / 100 + 1, () => `${' '.repeat(100)}x`),
  ],
  // CR alone ends a line, as CommonMark reads it.
  ['MAX_PAGE_LINES', 'para\r'.repeat(MAX_PAGE_LINES), 'para\r'.repeat(MAX_PAGE_LINES + 1)],
  ['MAX_PAGE_LINES', 'para\r\n'.repeat(MAX_PAGE_LINES), 'para\r\n'.repeat(MAX_PAGE_LINES + 1)],
  // Escapes and entities open constructs too.
  ['MAX_PAGE_MARKUP_CHARS', '\\!'.repeat(MAX_PAGE_MARKUP_CHARS), '\\!'.repeat(MAX_PAGE_MARKUP_CHARS + 1)],
  ['MAX_PAGE_MARKUP_CHARS', '&amp;'.repeat(MAX_PAGE_MARKUP_CHARS), '&amp;'.repeat(MAX_PAGE_MARKUP_CHARS + 1)],
];

describe('the parse cost counted before a page is parsed', () => {
  it.each(SHAPES)('%s: at the limit parsed, past it skipped', (name, at, over) => {
    expect(parseCostProblem(at)).toBeNull();
    expect(limit(over)).toBe(name);
  });

  it('counts the rows of a table whose lines end in CR alone', () => {
    const columns = 50;
    const row = `|${' a |'.repeat(columns)}`;
    const table = [
      row,
      `|${' - |'.repeat(columns)}`,
      ...Array.from({ length: MAX_TABLE_CELLS / columns }, () => row),
    ];
    expect(limit(table.join('\r'))).toBe('MAX_TABLE_CELLS');
  });

  it('counts no nesting, underlines or indentation in code, and none for quotes around a list or a rule', () => {
    const repl = lines(2 * MAX_NESTED_MARKERS, (i) => `>>> x = ${i}`);
    const deep = lines(MAX_NESTED_MARKERS + 1, () => `${' '.repeat(MAX_LINE_INDENT + 8)}- - x`);
    const legit = [
      // A Python session in a fence, also inside a quote, and a YAML diff.
      `\`\`\`pycon\n${repl}\n\`\`\``,
      `> \`\`\`pycon\n${lines(MAX_NESTED_MARKERS + 1, () => '> -  - name: a')}\n> \`\`\``,
      `~~~~\n${deep}\n~~~~`,
      // Indented as code.
      lines(MAX_NESTED_MARKERS + 1, () => '    - - x'),
      `${'* '.repeat(MAX_LINE_NESTING + 8)}`,
      lines(2 * MAX_NESTED_MARKERS, () => '> - item'),
    ];
    for (const source of legit) expect(parseCostProblem(source), source.slice(0, 40)).toBeNull();
    // A fence closes only with its own character, at least as long: what follows is counted again.
    const reopened = `\`\`\`\`\n~~~\n\`\`\`\n\`\`\`\`\n${lines(MAX_NESTED_MARKERS + 1, () => '- - x')}`;
    expect(limit(reopened)).toBe('MAX_NESTED_MARKERS');
  });

  it('does not take an underline after a blank line, or a rule, for a heading', () => {
    expect(parseCostProblem('Text\n\n---\n\n'.repeat(MAX_SETEXT_HEADINGS + 10))).toBeNull();
  });
});
