import type { StoredPage } from './stored-page.ts';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text as HTML: every character that could start markup is escaped, so docs content never runs. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const STYLE = `body{font:16px/1.6 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1f2937;background:#fff}
pre{white-space:pre-wrap;font:inherit;margin:0 0 1rem}h2,h3,h4{margin-top:2rem}
@media (prefers-color-scheme:dark){body{color:#e5e7eb;background:#111827}}`;

/**
 * A readable page of the stored text: the title, the description, and each section under its heading,
 * whose `id` is the stored anchor so a citation's `#anchor` lands. The text is shown as written
 * (escaped), never interpreted as HTML.
 */
export function renderPageHtml(page: StoredPage): string {
  const body: string[] = [`<h1>${escapeHtml(page.title)}</h1>`];
  if (page.description) body.push(`<p>${escapeHtml(page.description)}</p>`);
  let heading = '';
  for (const section of page.sections) {
    const key = `${section.anchor ?? ''}\u0000${section.headings.join('\u0000')}`;
    const title = section.headings.at(-1);
    if (key !== heading && title !== undefined) {
      const level = Math.min(6, section.headings.length + 1);
      const id = section.anchor ? ` id="${escapeHtml(section.anchor)}"` : '';
      body.push(`<h${level}${id}>${escapeHtml(title)}</h${level}>`);
    }
    heading = key;
    body.push(`<pre>${escapeHtml(section.text)}</pre>`);
  }
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(page.title)}</title><style>${STYLE}</style></head><body>${body.join('\n')}</body></html>`;
}
