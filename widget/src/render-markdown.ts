import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import type { Source } from './chat-client.ts';
import { fill, type PanelLabels } from './labels.ts';

/**
 * Answers are Markdown written by a model from docs that may be hostile, so the rendered HTML is held
 * to a short list of tags: no script, no styles, no images or frames (nothing loads from elsewhere), and
 * links only to http(s) or within the page. Raw HTML in the Markdown is shown as text, not parsed.
 */
const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'strong',
  'em',
  'del',
  'code',
  'pre',
  'blockquote',
  'a',
  'ul',
  'ol',
  'li',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'input',
];
const ALLOWED_ATTR = ['href', 'title', 'class', 'align', 'start', 'type', 'checked', 'disabled'];

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML from the model or the docs is shown as written.
    html: ({ text }) => escapeHtml(text),
    // An image would load from anywhere: shown as a link to it instead.
    image: ({ href, text }) => `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`,
  },
});

const purify = DOMPurify();
purify.addHook('uponSanitizeAttribute', (node, data) => {
  if (data.attrName === 'href' && !safeHref(data.attrValue)) data.keepAttr = false;
  if (node.nodeName === 'INPUT' && data.attrName === 'type' && data.attrValue !== 'checkbox')
    data.keepAttr = false;
});
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node instanceof HTMLAnchorElement) openElsewhere(node);
});

/** A link to another site opens in a new tab; one within the docs stays in this one (and the chat with it). */
export function openElsewhere(link: HTMLAnchorElement): void {
  const href = link.getAttribute('href');
  if (!href || !/^https?:/i.test(href) || new URL(href, location.href).origin === location.origin) return;
  link.target = '_blank';
  link.rel = 'noopener noreferrer nofollow';
}

/** http(s), a path on the same site, or an anchor: nothing that runs or loads another scheme. */
export function safeHref(href: string): boolean {
  const trimmed = href.trim();
  if (/^https?:\/\//i.test(trimmed)) return true;
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed)) return false;
  return !trimmed.startsWith('//');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The words an answer's Markdown is shown with (labels.ts). */
export type MarkdownLabels = Pick<PanelLabels, 'copy' | 'copyCode' | 'citation'>;

/**
 * Markdown to sanitized DOM nodes in `target`, with `[n]` citations linked to their sources; `pending`
 * (an answer still streaming, or stopped: its sources come at its end) shows no citation markers yet.
 */
export function renderMarkdown(
  target: HTMLElement,
  markdown: string,
  sources: Source[],
  pending: boolean,
  labels: MarkdownLabels,
): void {
  const html = marked.parse(markdown) as string;
  const fragment = purify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
  linkCitations(fragment, sources, pending, labels);
  addCopyButtons(fragment, labels);
  target.replaceChildren(fragment);
}

/**
 * `[2]` in the text (not in code or a link) becomes a link to source 2, when the answer has one. A
 * pending answer without its sources shows no markers rather than `[1]` as text: only markers that stand
 * as citations do (after a space, before a space or punctuation), so `items[0]` stays.
 */
function linkCitations(
  root: DocumentFragment,
  sources: Source[],
  pending: boolean,
  labels: MarkdownLabels,
): void {
  const byId = new Map(sources.map((s) => [s.id, s]));
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!(node.parentElement?.closest('code, pre, a') ?? null)) nodes.push(node as Text);
  }
  if (sources.length === 0) {
    if (pending)
      for (const node of nodes)
        node.data = node.data.replace(/(^|\s)\[\d{1,3}(?:\s*,\s*\d{1,3})*\](?=[\s.,;:!?)]|$)/g, '$1');
    return;
  }
  for (const node of nodes) {
    const text = node.data;
    // `[1, 2]` cites two sources, as the server reads it (src/assistant/citations.ts): a link for each.
    const pattern = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g;
    let last = 0;
    const parts: Node[] = [];
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      const cited = (match[1] ?? '')
        .split(',')
        .map((id) => byId.get(id.trim()))
        .filter((source): source is Source => source !== undefined && safeHref(source.url));
      if (cited.length === 0) continue;
      parts.push(document.createTextNode(text.slice(last, match.index)));
      for (const source of cited) {
        const link = document.createElement('a');
        link.className = 'cite';
        link.href = source.url;
        link.textContent = source.id;
        link.title = source.title;
        link.setAttribute('aria-label', fill(labels.citation, { number: source.id, title: source.title }));
        openElsewhere(link);
        parts.push(link);
      }
      last = match.index + match[0].length;
    }
    if (parts.length === 0) continue;
    parts.push(document.createTextNode(text.slice(last)));
    node.replaceWith(...parts);
  }
}

function addCopyButtons(root: DocumentFragment, labels: MarkdownLabels): void {
  for (const pre of root.querySelectorAll('pre')) {
    const wrapper = document.createElement('div');
    wrapper.className = 'code';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = labels.copy;
    button.setAttribute('aria-label', labels.copyCode);
    // Keyboard users can scroll a long line sideways.
    pre.tabIndex = 0;
    pre.replaceWith(wrapper);
    wrapper.append(pre, button);
  }
}
