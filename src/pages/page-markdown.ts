import { type InertState, inertMarkdown } from './inert-markdown.ts';
import type { StoredPage } from './stored-page.ts';
import { storedRowsWidth, storedTablesAsGfm } from './stored-tables.ts';

/**
 * A stored page as Markdown, for agents: `# title`, the description as a quote, then each section under
 * its heading at its depth (H2 for the page's top sections), its text as stored at ingestion (front
 * matter gone, components reduced to their text, code blocks kept fenced, tables as GFM tables). Chunks of one long section
 * share their heading, which is written once.
 */
export function renderPageMarkdown(page: StoredPage, inert?: InertState): string {
  const out: string[] = [`# ${oneLine(page.title)}`];
  if (page.description) out.push(`> ${oneLine(page.description)}`);
  // Indexes in `out` of stored text, written back with its tables as GFM once all its chunks are in.
  const texts = new Set<number>();
  // The previous chunk's width when it is nothing but a table's rows: a piece of a table too long for
  // one chunk, which the next chunk of the section goes on with.
  let rowsWidth = 0;
  let previous: string[] = [];
  let previousAnchor: string | null = null;
  for (const [i, section] of page.sections.entries()) {
    const text = i === 0 ? withoutIntroRepeats(page, section) : section.text.trim();
    const same =
      section.anchor === previousAnchor &&
      section.headings.length === previous.length &&
      section.headings.every((h, i) => h === previous[i]);
    if (!same) {
      // Only the headings that changed are written: a subsection under an unchanged parent.
      let shared = 0;
      while (shared < section.headings.length && section.headings[shared] === previous[shared]) shared++;
      if (shared === section.headings.length && shared > 0) shared--;
      for (let depth = shared; depth < section.headings.length; depth++) {
        const heading = section.headings[depth] ?? '';
        out.push(`${'#'.repeat(Math.min(6, depth + 2))} ${oneLine(heading)}`);
      }
    }
    previous = section.headings;
    previousAnchor = section.anchor;
    if (text === '') continue;
    const width = storedRowsWidth(text);
    // Its rows go on in the same table: written apart, each piece would be a table of its own, its
    // first row taken for the header.
    if (same && rowsWidth > 0 && storedRowsWidth(text.split('\n', 1)[0] ?? '') === rowsWidth)
      out[out.length - 1] += `\n${text}`;
    else {
      texts.add(out.length);
      out.push(text);
    }
    rowsWidth = width;
  }
  // Docs text that was escaped in the docs is written so that it stays text (inert-markdown.ts); `inert`
  // carries on from the page before it in a file of several (llms-full.txt).
  return inertMarkdown(
    `${out.map((part, i) => (texts.has(i) ? storedTablesAsGfm(part) : part)).join('\n\n')}\n`,
    inert,
  );
}

/**
 * The first section's text without what the page head already shows: ingestion puts the description
 * (and, on a page without any text, the title) in front of it, so search finds the page by them.
 */
function withoutIntroRepeats(page: StoredPage, section: StoredPage['sections'][number]): string {
  let text = section.text.trim();
  if (section.anchor !== null || section.headings.length > 0) return text;
  const strip = (prefix: string | null) => {
    if (prefix && text.startsWith(prefix)) text = text.slice(prefix.length).trimStart();
  };
  if (text === [page.title, page.description].filter(Boolean).join('\n\n')) return '';
  strip(page.description);
  return text;
}

/** A title or heading on one line: a newline in it would end the Markdown heading early. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
