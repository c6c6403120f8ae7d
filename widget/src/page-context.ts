/** What the reader is looking at, read from the host page. */

export interface PageOptions {
  /** Stripped from `location.pathname` to give the docs page path (e.g. `/docs/`). */
  pathPrefix?: string;
  version?: string;
  language?: string;
}

export function currentPagePath(options: PageOptions): string {
  let path = location.pathname;
  const prefix = options.pathPrefix;
  if (prefix && path.startsWith(prefix)) path = path.slice(prefix.length);
  path = path.replace(/^\/+/, '').replace(/\/+$/, '');
  return (path || 'index').slice(0, 200);
}

export function pageFilter(options: PageOptions): { version?: string; language?: string } {
  const language = options.language ?? document.documentElement.lang.trim();
  return {
    ...(options.version ? { version: options.version } : {}),
    ...(language ? { language } : {}),
  };
}

/** Longest selection sent as context; the API takes 20,000 characters. */
export const MAX_SELECTION_CHARS = 4_000;

export interface Selected {
  type: 'code' | 'textSelection';
  value: string;
  rect: DOMRect;
}

/** The reader's selection outside the widget, when there is a useful one. */
export function readSelection(widgetHost: Element): Selected | undefined {
  const selection = document.getSelection();
  if (!selection || selection.isCollapsed || selection.rangeCount === 0) return undefined;
  const value = selection.toString().trim();
  if (value.length < 3) return undefined;
  const range = selection.getRangeAt(0);
  const container = range.commonAncestorContainer;
  const element = container instanceof Element ? container : container.parentElement;
  if (!element || widgetHost.contains(element)) return undefined;
  return {
    type: element.closest('pre, code') ? 'code' : 'textSelection',
    value: value.slice(0, MAX_SELECTION_CHARS),
    rect: range.getBoundingClientRect(),
  };
}
