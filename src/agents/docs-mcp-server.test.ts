import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import type { CitableSource } from '../assistant/answer-sources.ts';
import type { SearchResult, SiteSearch } from '../search/site-search.ts';
import type { Storage } from '../storage/database.ts';
import type { Site } from '../tenancy/sites.ts';
import { liveMarkup } from '../testing/live-markup.ts';
import { answerAsText } from './ask-docs.ts';
import {
  createDocsMcpServer,
  MAX_PAGE_PART_CHARS,
  MAX_SEARCH_TEXT_CHARS,
  pagePart,
} from './docs-mcp-server.ts';
import { docsTitle } from './server-card.ts';

/** The `search_docs` filter descriptions an agent is shown for a site with these labels. */
async function filterDescriptions(versions: string[] | null, languages: string[] = []) {
  const server = createDocsMcpServer({
    site: { id: 'site_1', domain: 'docs', name: 'Acme' } as Site,
    storage: {} as Storage,
    search: {} as SiteSearch,
    docentUrl: 'http://127.0.0.1',
    version: 'test',
    labels: versions === null ? null : { versions, languages },
    ask: () => Promise.reject(new Error('not asked')),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  try {
    const { tools } = await client.listTools();
    const properties = tools.find((t) => t.name === 'search_docs')?.inputSchema.properties as Record<
      string,
      { description?: string }
    >;
    return { version: properties.version?.description, language: properties.language?.description };
  } finally {
    await client.close();
  }
}

describe('search_docs filter descriptions', () => {
  it("list the site's versions and languages, or say there are none", async () => {
    expect(await filterDescriptions(['v1', 'v2'], ['en', 'fr'])).toEqual({
      version: 'Only this docs version: one of v1, v2',
      language: 'Only this language (e.g. "en"); these docs label pages en, fr',
    });
    expect(await filterDescriptions([], [])).toEqual({
      version: 'Only this docs version (these docs have none: leave it out)',
      language: 'Only this language (e.g. "en")',
    });
    // Labels that could not be read: described without them.
    expect(await filterDescriptions(null)).toEqual({
      version: 'Only this docs version (as the docs name it)',
      language: 'Only this language (e.g. "en")',
    });
  });

  it('list about a thousand characters of versions, then count the rest', async () => {
    const versions = Array.from({ length: 300 }, (_, i) => `release-${String(i).padStart(3, '0')}`);
    const { version } = await filterDescriptions(versions, []);
    // 11 characters each, 13 with the separator: 77 fit in 1,000 characters.
    expect(version).toBe(`Only this docs version: one of ${versions.slice(0, 77).join(', ')} and 223 more`);
  });
});

describe('docsTitle', () => {
  it('does not say docs twice', () => {
    expect(docsTitle('Acme')).toBe('Acme docs');
    expect(docsTitle('Skyhook Docs ')).toBe('Skyhook Docs');
    expect(docsTitle('Acme Documentation')).toBe('Acme Documentation');
    expect(docsTitle('Dockerdocs')).toBe('Dockerdocs docs');
  });
});

describe('pagePart', () => {
  it('gives a short page whole, and a long one in parts cut after a line, each naming the next offset', () => {
    expect(pagePart('# Short\n', 0)).toBe('# Short\n');
    const line = `${'w'.repeat(99)}\n`;
    const content = line.repeat(1_201);
    let offset = 0;
    const parts: string[] = [];
    for (;;) {
      const part = pagePart(content, offset);
      if (part === null) throw new Error('past the end');
      const [, text = '', note = ''] = /^([\s\S]*)\n\n\[(Characters [^\]]*)\]$/.exec(part) ?? [];
      expect(text.length).toBeLessThanOrEqual(MAX_PAGE_PART_CHARS);
      // Cut after a whole line.
      expect(text.endsWith('\n')).toBe(true);
      parts.push(text);
      const next = /offset (\d+) for the rest/.exec(note);
      if (next === null) {
        expect(note).toBe(
          `Characters ${offset}–${content.length} of ${content.length}: the end of the page.`,
        );
        break;
      }
      offset = Number(next[1]);
    }
    expect(parts.length).toBe(Math.ceil(content.length / MAX_PAGE_PART_CHARS));
    expect(parts.join('')).toBe(content);
    expect(pagePart(content, content.length)).toBeNull();
    // No line end to cut at: the cut never splits a character outside the Basic Multilingual Plane.
    const emoji = `${'x'.repeat(MAX_PAGE_PART_CHARS - 1)}😀${'y'.repeat(10)}`;
    const first = pagePart(emoji, 0) ?? '';
    expect(first.startsWith(`${'x'.repeat(MAX_PAGE_PART_CHARS - 1)}\n`)).toBe(true);
    expect(pagePart(emoji, MAX_PAGE_PART_CHARS - 1)?.startsWith('😀yyy')).toBe(true);
  });
});

describe('search_docs output', () => {
  /** `search_docs` over a site whose every section is `chars` characters long. */
  async function searchLong(chars: number, limit: number, hostile?: { title: string; text: string }) {
    const results: SearchResult[] = Array.from({ length: limit }, (_, i) => ({
      pagePath: `reference/table-${i}`,
      url: '',
      title: hostile?.title ?? `Table ${i}`,
      breadcrumbs: [hostile?.title ?? `Table ${i}`, 'Fields'],
      anchor: 'fields',
      text: hostile?.text ?? `${i} `.padEnd(chars, 'x'),
      score: limit - i,
      coverage: 1,
      versions: [],
      languages: [],
      searchedVersion: null,
    }));
    const server = createDocsMcpServer({
      site: { id: 'site_1', domain: 'docs', name: 'Acme', base_url: null } as Site,
      storage: {} as Storage,
      search: { search: async () => results } as unknown as SiteSearch,
      docentUrl: 'http://127.0.0.1',
      version: 'test',
      labels: { versions: [], languages: [] },
      ask: () => Promise.reject(new Error('not asked')),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      const result = await client.callTool({ name: 'search_docs', arguments: { query: 'fields', limit } });
      const [content] = result.content as { type: string; text: string }[];
      const structured = result.structuredContent as { results: { path: string }[] };
      return { text: content?.text ?? '', paths: structured.results.map((r) => r.path) };
    } finally {
      await client.close();
    }
  }

  it('keeps to MAX_SEARCH_TEXT_CHARS, best results first, saying how many were left out', async () => {
    // 50 sections of 16,000 characters (the largest of the shared corpora): 800,000 characters whole.
    const { text, paths } = await searchLong(16_000, 50);
    expect(text.length).toBeLessThanOrEqual(MAX_SEARCH_TEXT_CHARS + 300);
    expect(paths).toEqual(['reference/table-0', 'reference/table-1', 'reference/table-2']);
    expect(text).toContain('[3] Table 2 › Fields');
    expect(text).not.toContain('[4] ');
    expect(text).toMatch(
      /\n\n\[47 more results were left out: search_docs returns at most 50,000 characters of sections\. .*\]$/,
    );
    // Within the budget: every result, no note.
    const small = await searchLong(500, 50);
    expect(small.paths).toHaveLength(50);
    expect(small.text).not.toContain('left out');
  });

  it('gives docs text and titles as text: no link, image or HTML a client rendering it would make live', async () => {
    // Front matter titles, and docs text that was escaped (`\[x\](javascript:…)`), as stored.
    const { text } = await searchLong(0, 2, {
      title: 'Keys [t](javascript:alert(1)) <svg onload=alert(2)>',
      text: 'Rotate [x](javascript:alert(3)) and <img src=x onerror=alert(4)> and ![p](https://tracker.example/p.gif).',
    });
    expect(text).toContain('Rotate [x\\](javascript:alert(3))');
    expect(liveMarkup(text)).toEqual([]);
  });
});

describe('ask_docs output', () => {
  it("lists a source whose title holds markup as text: no link or HTML in the tool's text", () => {
    const text = answerAsText({
      text: 'Rotate keys [1].',
      sources: [
        {
          id: '1',
          title: 'Keys [t](javascript:alert(1)) <img src=x onerror=alert(2)>',
          url: 'https://docs.example.com/keys',
        } as CitableSource,
      ],
      threadId: 'thr_1',
    });
    expect(liveMarkup(text)).toEqual([]);
    expect(text).toContain('[1] Keys [t\\](javascript:alert(1)) \\<img');
  });
});
