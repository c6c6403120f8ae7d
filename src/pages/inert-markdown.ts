/**
 * Stored text is the docs' text with their links, images and raw HTML already reduced to text, but a
 * docs author's escaped text comes out of that unescaped: `\[x\](javascript:…)` or `&lt;img onerror=…&gt;`,
 * text on the docs site, is stored as `[x](javascript:…)` and `<img onerror=…>`. Written as Markdown for
 * agents (a page's `.md`, llms.txt, llms-full.txt, the MCP tools), that would be a live link, image or
 * HTML in whatever renders it. So, outside code, every `<` that could open a tag or autolink becomes
 * `\<`, and every `]` that could close a link or image (`](`) or a definition (`]:`) becomes `\]`: each
 * still reads as the same character, and nothing in the docs text links or loads anything.
 *
 * One pass, line by line, without parsing (llms-full.txt is megabytes; a Markdown parser takes about a
 * second a megabyte). Code is kept as written only where every reading agrees it is code, CommonMark's
 * and GFM's, whether a fence is inside a list item or not; anywhere else a `\` too many shows in code:
 * - a fence opened on a line of its own, at most three spaces in, up to a closing line at the same
 *   indentation; a line inside it indented less, a closing line indented otherwise, or a fence after a
 *   list or quote marker or further in could be read otherwise, so from there on nothing is taken for code;
 * - an inline code span closed on its own line, and with no `|` in it where a GFM table could be (a cell
 *   ends at one); a backtick left open leaves the rest of the paragraph (to the next blank line) without
 *   code spans.
 */

/**
 * Where a reading of Markdown is at the end of a text, for a text that goes on after it (the next page
 * of llms-full.txt): inside a fence, past a line read two ways, or with a backtick run left open.
 */
export interface InertState {
  fence: { char: string; length: number; indent: string } | null;
  uncertain: boolean;
  open: boolean;
}

export function inertState(): InertState {
  return { fence: null, uncertain: false, open: false };
}

/** `markdown` made inert; `state`, when given, is where the text before it left off, and is updated. */
export function inertMarkdown(markdown: string, state: InertState = inertState()): string {
  const lines = markdown.split('\n');
  const tables = mayBeTables(lines);
  let { fence, uncertain, open } = state;
  for (const [i, line] of lines.entries()) {
    if (uncertain) {
      lines[i] = inertText(line);
      continue;
    }
    const marker = /^([ \t]*)(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence) {
      if (line.trim() === '') continue;
      const [, indent = '', run = '', rest = ''] = marker ?? [];
      if (marker && run[0] === fence.char && run.length >= fence.length && rest.trim() === '') {
        if (indent === fence.indent) fence = null;
        else uncertain = true;
      } else if (!line.startsWith(fence.indent)) uncertain = true;
      if (uncertain) lines[i] = inertText(line);
      continue;
    }
    if (line.trim() === '') {
      open = false;
      continue;
    }
    if (marker) {
      const [, indent = '', run = '', info = ''] = marker;
      if (/^ {0,3}$/.test(indent) && !(run[0] === '`' && info.includes('`'))) {
        fence = { char: run[0] ?? '`', length: run.length, indent };
        open = false;
        continue;
      }
    }
    if (marker || /^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+|>[ \t]?)+[ \t]*(?:`{3,}|~{3,})/.test(line)) {
      uncertain = true;
      lines[i] = inertText(line);
      continue;
    }
    const result = inertSpans(line, open, tables[i] ?? true);
    lines[i] = result.line;
    open = result.open;
  }
  Object.assign(state, { fence, uncertain, open });
  return lines.join('\n');
}

/** A title or description on one line, made inert the same way. */
export function inertLine(line: string): string {
  return inertSpans(line, false, true).line;
}

/**
 * For each line, whether GFM could read it as a table row: it is in a run of lines (up to a blank line)
 * with one that could be a table's delimiter row (nothing but `|`, `-`, `:`, spaces and container
 * markers, with a `|` and a `-`).
 */
function mayBeTables(lines: string[]): boolean[] {
  const tables: boolean[] = [];
  let start = 0;
  let table = false;
  for (let i = 0; i <= lines.length; i++) {
    const line = lines[i];
    if (line === undefined || line.trim() === '') {
      for (let j = start; j < i; j++) tables[j] = table;
      tables[i] = false;
      start = i + 1;
      table = false;
    } else if (/^[|:\-\s>*+.)\d]*$/.test(line) && line.includes('|') && line.includes('-')) table = true;
  }
  return tables;
}

/**
 * One line of a paragraph, its code spans kept when it has no backtick left open before it (`open`);
 * `open` after it when a run of it found no closing run on it. `table`: the line may be a GFM table's.
 */
function inertSpans(line: string, open: boolean, table: boolean): { line: string; open: boolean } {
  if (open || !line.includes('`')) return { line: inertText(line), open };
  let out = '';
  let text = 0;
  let i = line.indexOf('`');
  while (i !== -1) {
    let run = i;
    while (line[run] === '`') run++;
    // A backtick after an odd number of backslashes is escaped: no span opens there.
    let slashes = 0;
    while (line[i - 1 - slashes] === '\\') slashes++;
    if (slashes % 2 === 1) {
      i = line.indexOf('`', i + 1);
      continue;
    }
    const ticks = run - i;
    // The span ends at the next run of exactly as many backticks.
    let close = line.indexOf('`', run);
    while (close !== -1) {
      let end = close;
      while (line[end] === '`') end++;
      if (end - close === ticks) break;
      close = line.indexOf('`', end);
    }
    if (close === -1) {
      // Left open: it may close on a later line, so the rest of the paragraph has no code spans.
      return { line: out + inertText(line.slice(text)), open: true };
    }
    // A `|` in it (not after an odd number of backslashes) would end a GFM table cell there, and the
    // backticks would pair otherwise.
    if (table && /(?:^|[^\\])(?:\\\\)*\|/.test(line.slice(run, close)))
      return { line: inertText(line), open: true };
    out += inertText(line.slice(text, i)) + line.slice(i, close + ticks);
    text = close + ticks;
    i = line.indexOf('`', text);
  }
  return { line: out + inertText(line.slice(text)), open: false };
}

function inertText(text: string): string {
  // A backslash escape is kept as it is: `\<` is a `<` already, and `\\<` would be a backslash and a tag.
  return text.replace(/\\[\s\S]|<(?=[A-Za-z/!?])|\](?=[(:])/g, (m) => (m.length === 2 ? m : `\\${m}`));
}
