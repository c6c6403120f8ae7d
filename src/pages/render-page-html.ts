import { scriptLanguage } from '../search/script-language.ts';
import { sectionHtml } from './section-html.ts';
import type { ListedPage } from './site-navigation.ts';
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
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0 0 1rem;padding:.6rem .8rem;background:#f3f4f6;border-radius:6px;font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere;unicode-bidi:isolate}pre code{font:inherit}
pre{direction:ltr;text-align:left}
table{border-collapse:collapse;display:block;overflow-x:auto}th,td{border:1px solid #d1d5db;padding:.3rem .6rem}h2,h3,h4{margin-top:2rem}
@media (prefers-color-scheme:dark){body{color:#e5e7eb;background:#111827}pre{background:#1f2937}th,td{border-color:#374151}a{color:#93c5fd}}`;

/** The demo site's frame around a page: its navigation and the reader's widget. */
export interface PageChrome {
  siteName: string;
  sections: { name: string; pages: Pick<ListedPage, 'path' | 'title'>[] }[];
  /** Where the site's pages are served, ending in `/`: `/sites/demo/pages/`. */
  pagesBase: string;
  widget: { src: string; domain: string; key: string };
}

const CHROME_STYLE = `body{max-width:none;margin:0;padding:0}
.top{display:flex;flex-wrap:wrap;align-items:center;gap:.3rem 1rem;padding:.8rem 1.5rem;border-bottom:1px solid #e5e7eb}
.top strong{font-size:1.1rem}.top span{color:#4b5563;font-size:.9rem}
.layout{display:flex;align-items:flex-start}
nav{flex:0 0 15rem;padding:1rem 1.5rem;font-size:.92rem;position:sticky;top:0;max-height:100vh;overflow:auto}
nav h2{font-size:.75rem;text-transform:uppercase;letter-spacing:.05em;color:#4b5563;margin:1.2rem 0 .4rem}
nav ul{list-style:none;margin:0;padding:0}nav li{margin:.25rem 0}nav a{color:inherit;text-decoration:none}
nav a[aria-current=page]{color:#2557d6;font-weight:600}
main{flex:1;min-width:0;max-width:46rem;padding:0 1.5rem 6rem}
.top a.menu{display:none}
@media (max-width:760px){.layout{flex-direction:column;align-items:stretch}main{order:-1}.top a.menu{display:inline;margin-left:auto}
nav{position:static;max-height:none;border-top:1px solid #e5e7eb}}
@media (prefers-color-scheme:dark){.top,nav{border-color:#374151}.top span,nav h2{color:#9ca3af}nav a[aria-current=page]{color:#7aa2ff}}`;

/**
 * A readable page of the stored text: the title, the description, and each section under its heading,
 * whose `id` is the stored anchor so a citation's `#anchor` lands. Section text renders as Markdown
 * (section-html.ts: raw HTML shown as text, sanitized, bounded), or escaped as written when too long.
 */
export function renderPageHtml(
  page: StoredPage,
  options: { pagesBase: string; chrome?: PageChrome },
): string {
  const { pagesBase, chrome } = options;
  const body: string[] = [`<h1>${escapeHtml(page.title)}</h1>`];
  // Often the page's first paragraph says the same: then it is shown once.
  const first = page.sections[0]?.text.trimStart() ?? '';
  if (page.description && !first.startsWith(page.description.trim()))
    body.push(`<p>${escapeHtml(page.description)}</p>`);
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
    body.push(sectionHtml(section.text, pagesBase) ?? `<pre>${escapeHtml(section.text)}</pre>`);
  }
  const script = scriptOf(page);
  const head = `<meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(page.title)}</title>`;
  if (!chrome)
    return `<!doctype html><html${script.attributes}><head>${head}<style>${STYLE}</style></head><body>${body.join('\n')}</body></html>`;
  return `<!doctype html><html${script.attributes || ' lang="en"'}><head>${head}<style>${STYLE}\n${CHROME_STYLE}</style></head><body>${frame(page, chrome, body.join('\n'))}</body></html>`;
}

function frame(page: StoredPage, chrome: PageChrome, content: string): string {
  const nav = chrome.sections
    .map((section) => {
      const links = section.pages.map((listed) => {
        const current = listed.path === page.path ? ' aria-current="page"' : '';
        const href = escapeHtml(chrome.pagesBase + listed.path.split('/').map(encodeURIComponent).join('/'));
        return `<li><a href="${href}"${current}>${escapeHtml(listed.title)}</a></li>`;
      });
      return `<h2>${escapeHtml(section.name)}</h2><ul>${links.join('')}</ul>`;
    })
    .join('');
  const { src, domain, key } = chrome.widget;
  const widget = `<script src="${escapeHtml(src)}" data-domain="${escapeHtml(domain)}" data-key="${escapeHtml(key)}" data-path-prefix="${escapeHtml(chrome.pagesBase)}" defer></script>`;
  // On a phone the page comes first and the navigation after it, reached from the top bar's "Menu".
  return `<header class="top"><strong>${escapeHtml(chrome.siteName)}</strong><span>Docent demo: ask the assistant about these docs (Ask AI, or Ctrl+I / ⌘I)</span><a class="menu" href="#docs-nav">Menu</a></header>
<div class="layout"><nav id="docs-nav" aria-label="Docs">${nav}</nav><main>${content}</main></div>${widget}`;
}

/** Letters read for `scriptOf`: the start of a page says which script it is written in. */
const SCRIPT_SAMPLE_CHARS = 4_000;

/**
 * `<html>`'s `lang` and `dir` for a page written in a script that tells them: Arabic or Hebrew letters
 * (more of them than Latin ones) make the page right to left, so its paragraphs, lists and tables start
 * on the right; kana says Japanese, Hangul Korean, Han without kana Chinese (the browser picks the
 * glyphs and line breaking by `lang`). Latin script says no language: nothing rather than a wrong "en".
 */
export function scriptOf(page: Pick<StoredPage, 'title' | 'sections'>): { attributes: string } {
  let sample = page.title;
  for (const section of page.sections) {
    if (sample.length >= SCRIPT_SAMPLE_CHARS) break;
    sample += ` ${section.headings.join(' ')} ${section.text}`;
  }
  switch (scriptLanguage(sample.slice(0, SCRIPT_SAMPLE_CHARS))) {
    case 'hebrew':
      return { attributes: ' lang="he" dir="rtl"' };
    case 'arabic':
      // Arabic script is also Persian's and Urdu's: the direction, not a language.
      return { attributes: ' dir="rtl"' };
    case 'korean':
      return { attributes: ' lang="ko"' };
    case 'japanese':
      return { attributes: ' lang="ja"' };
    case 'chinese':
      return { attributes: ' lang="zh"' };
    default:
      return { attributes: '' };
  }
}
