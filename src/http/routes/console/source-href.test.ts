import { describe, expect, it } from 'vitest';
import { consoleSourceHref } from './source-href.ts';

describe('consoleSourceHref', () => {
  it("shows a page-view source on the console's own origin, not the host a reader's request named", () => {
    expect(consoleSourceHref('http://evil.example/sites/acme/pages/guides/cli?x=1#ingest', 'acme')).toBe(
      '/sites/acme/pages/guides/cli?x=1#ingest',
    );
    expect(consoleSourceHref('https://docs-ai.example.com/sites/acme/pages/index', 'acme')).toBe(
      '/sites/acme/pages/index',
    );
  });

  it("keeps a link to the site's own docs, and links nothing but http(s)", () => {
    expect(consoleSourceHref('https://docs.acme.com/guides/cli#ingest', 'acme')).toBe(
      'https://docs.acme.com/guides/cli#ingest',
    );
    // Another site's page view is not this site's: left as stored.
    expect(consoleSourceHref('https://x.example/sites/other/pages/a', 'acme')).toBe(
      'https://x.example/sites/other/pages/a',
    );
    expect(consoleSourceHref('javascript:alert(1)', 'acme')).toBe('#');
    expect(consoleSourceHref('/sites/acme/pages/a', 'acme')).toBe('#');
    expect(consoleSourceHref('http://[bad/sites/acme/pages/a', 'acme')).toBe('#');
  });
});
