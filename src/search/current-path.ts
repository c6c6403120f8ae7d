/**
 * Normalises a page reference (page id, URL path or full URL) to the shape of a page id, so the reader's
 * current page can be found among indexed pages: `https://x/guides/setup.mdx?a#b` → `guides/setup`.
 */
export const normalizePagePath = (ref: string): string => {
  let p = ref.trim();
  p = p.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  p = p.replace(/[?#].*$/, '');
  try {
    p = decodeURIComponent(p);
  } catch {
    // A malformed escape is kept as written; it simply will not match a page.
  }
  p = p.replace(/\.(mdx|md|html?)$/i, '');
  p = p.replace(/^\/+|\/+$/g, '');
  p = p.replace(/(^|\/)index$/i, '');
  return p.toLowerCase();
};

/** The folder a page id sits in: pages in the same folder are the "siblings" a reader is likely near. */
export const parentOf = (normalized: string): string => {
  const slash = normalized.lastIndexOf('/');
  return slash < 0 ? '' : normalized.slice(0, slash);
};

/**
 * Finds the page for a reference among normalised page ids. A site may be served under a base path
 * (`/docs/guides/setup` for page `guides/setup`), so leading URL segments are dropped one at a time.
 */
export const resolvePage = (
  ref: string,
  pages: { get(key: string): number | undefined },
): number | undefined => {
  let p = normalizePagePath(ref);
  for (;;) {
    const hit = pages.get(p);
    if (hit !== undefined) return hit;
    const slash = p.indexOf('/');
    if (slash < 0) return undefined;
    p = p.slice(slash + 1);
  }
};
