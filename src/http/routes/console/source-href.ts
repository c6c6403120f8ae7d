/**
 * Where the console links a stored source. A source on Docent's page view was linked, when no
 * `DOCENT_PUBLIC_URL` is set, under the address the reader's request came to: its `Host` header, which
 * a reader writes (`Host: evil.example` stores `http://evil.example/sites/acme/pages/…` with the answer).
 * The console is served by Docent itself, so such a link is shown on the console's own origin (its path,
 * query and anchor only), never on the host a reader named. Links to the site's own docs (its base URL)
 * are shown as stored; anything but http(s) is not linked.
 */
export function consoleSourceHref(url: string, domain: string): string {
  if (!/^https?:\/\//i.test(url)) return '#';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '#';
  }
  const pageView = `/sites/${encodeURIComponent(domain)}/pages/`;
  return parsed.pathname.startsWith(pageView) ? `${parsed.pathname}${parsed.search}${parsed.hash}` : url;
}
