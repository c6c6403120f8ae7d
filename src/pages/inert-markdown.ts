/**
 * Stored text is the docs' text with their links, images and raw HTML already reduced to text, but a
 * docs author's escaped text comes out of that unescaped: `\[x\](javascript:…)` or `&lt;img onerror=…&gt;`,
 * text on the docs site, is stored as `[x](javascript:…)` and `<img onerror=…>`. Written as Markdown for
 * agents (a page's `.md`, llms.txt, llms-full.txt, the MCP `get_page` tool), that would be a live link,
 * image or HTML in whatever renders it. So, outside code, every `<` that could open a tag or autolink
 * becomes `\<`, and every `]` that could close a link or image (`](`) or a definition (`]:`) becomes
 * `\]`: each still reads as the same character, and nothing in the docs text links or loads anything.
 * One pass over the text, line by line. Code is kept as written: a fence at the start of a line (only
 * there: indented, it could be a list's, which an unindented line ends) and inline code spans.
 */
export function inertMarkdown(markdown: string): string {
  const lines = markdown.split('\n');
  let fence: { char: string; length: number } | null = null;
  for (const [i, line] of lines.entries()) {
    if (fence) {
      const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (marker?.[0] === fence.char && marker.length >= fence.length && line.trim() === marker) fence = null;
      continue;
    }
    const marker = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && !(marker[0] === '`' && line.slice(marker.length).includes('`'))) {
      fence = { char: marker[0] ?? '`', length: marker.length };
      continue;
    }
    lines[i] = inertLine(line);
  }
  return lines.join('\n');
}

/** One line outside fenced code (or a title within one), its code spans kept, the rest made inert. */
export function inertLine(line: string): string {
  if (!/<|\]/.test(line)) return line;
  let out = '';
  let text = 0;
  let i = line.indexOf('`');
  while (i !== -1) {
    let run = i;
    // A backtick after an odd number of backslashes is escaped: no span opens there.
    let slashes = 0;
    while (line[i - 1 - slashes] === '\\') slashes++;
    if (slashes % 2 === 1) {
      i = line.indexOf('`', i + 1);
      continue;
    }
    while (line[run] === '`') run++;
    const ticks = line.slice(i, run);
    // The span ends at the next run of exactly as many backticks.
    let close = line.indexOf(ticks, run);
    while (close !== -1 && (line[close + ticks.length] === '`' || line[close - 1] === '`'))
      close = line.indexOf(ticks, close + 1);
    if (close === -1) {
      i = line.indexOf('`', run);
      continue;
    }
    out += inertText(line.slice(text, i)) + line.slice(i, close + ticks.length);
    text = close + ticks.length;
    i = line.indexOf('`', text);
  }
  return out + inertText(line.slice(text));
}

function inertText(text: string): string {
  // A backslash escape is kept as it is: `\\<` is a `<` already, and `\\\\<` would be a backslash and a tag.
  return text.replace(/\\[\s\S]|<(?=[A-Za-z/!?])|\](?=[(:])/g, (m) => (m.length === 2 ? m : `\\${m}`));
}
