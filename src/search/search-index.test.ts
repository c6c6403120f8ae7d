import { describe, expect, it } from 'vitest';
import { ANALYZER_VERSION, analyzeChunk } from './analyze.ts';
import { normalizePagePath, resolvePage } from './current-path.ts';
import { SearchIndexBuilder } from './index-builder.ts';
import { withinOneEdit } from './one-edit.ts';
import {
  addChunk,
  buildSearchIndex,
  DEFAULT_RANKING,
  questionLanguageLabel,
  searchIndex,
  siteVersionLabel,
} from './search-index.ts';
import type { IndexableChunk } from './types.ts';

interface ChunkSpec {
  id: number;
  pagePath: string;
  pageTitle: string;
  headings?: string[];
  text: string;
  versions?: string[];
  languages?: string[];
}

const chunk = (spec: ChunkSpec, analyze = true): IndexableChunk => {
  const headings = spec.headings ?? [];
  const languages = spec.languages ?? [];
  return {
    ...spec,
    headings,
    versions: spec.versions ?? [],
    languages,
    analyzed: analyze
      ? JSON.parse(
          JSON.stringify(
            analyzeChunk({
              pageTitle: spec.pageTitle,
              headings,
              text: spec.text,
              language: languages[0] ?? null,
            }),
          ),
        )
      : null,
  };
};

const filler = 'This section explains general concepts of the product in plain words for new readers.';

const corpus = [
  chunk({
    id: 1,
    pagePath: 'guides/install',
    pageTitle: 'Installation',
    text: `Install the CLI with npm. ${filler}`,
  }),
  chunk({
    id: 2,
    pagePath: 'guides/rate-limits',
    pageTitle: 'Rate limits',
    headings: ['Handling rate limits'],
    text: `Requests over the rate limit return 429. Retry with backoff. ${filler}`,
  }),
  chunk({
    id: 3,
    pagePath: 'guides/errors',
    pageTitle: 'Errors',
    text: `A 429 error means too many requests; the limit resets each minute. ${filler}`,
  }),
  chunk({
    id: 4,
    pagePath: 'reference/streaming',
    pageTitle: 'Streaming',
    text: `Stream tokens with server-sent events. ${filler}`,
  }),
];

const ids = (hits: { chunkId: number }[]): number[] => hits.map((h) => h.chunkId);

describe('searchIndex ranking', () => {
  const index = buildSearchIndex(corpus);

  it('ranks the chunk whose title, heading and body match above one with a body-only match', () => {
    expect(ids(searchIndex(index, 'rate limits', { limit: 10 }))).toEqual([2, 3]);
  });

  it('prefers rarer terms (IDF) and respects limit', () => {
    const hits = searchIndex(index, 'install streaming', { limit: 1 });
    expect(hits).toHaveLength(1);
    expect([1, 4]).toContain(hits[0]?.chunkId);
  });

  it('returns scores in descending order with page paths', () => {
    const hits = searchIndex(index, 'rate limit 429 error', { limit: 10 });
    expect(hits.map((h) => h.pagePath)).toEqual(['guides/rate-limits', 'guides/errors']);
    expect(hits[0]?.score ?? 0).toBeGreaterThanOrEqual(hits[1]?.score ?? 0);
  });

  it('scores a phrase in order above the same words scattered', () => {
    const phrase = buildSearchIndex([
      chunk({
        id: 1,
        pagePath: 'a',
        pageTitle: 'A',
        text: 'the mode of the picture, a sleep setting and a timer',
      }),
      chunk({ id: 2, pagePath: 'b', pageTitle: 'B', text: 'the picture mode, a sleep timer and a setting' }),
    ]);
    expect(ids(searchIndex(phrase, 'sleep timer', { limit: 2 }))).toEqual([2, 1]);
  });

  it('lets page evidence lift a chunk whose page covers the rest of the question', () => {
    const pages = buildSearchIndex([
      chunk({ id: 1, pagePath: 'a', pageTitle: 'A', text: `webhooks retries ${filler}` }),
      chunk({ id: 2, pagePath: 'b', pageTitle: 'B', text: `webhooks retries ${filler}` }),
      chunk({ id: 3, pagePath: 'b', pageTitle: 'B', text: `signature verification ${filler}` }),
    ]);
    // Chunks 1 and 2 are identical; only 2's page also answers "signature".
    const order = ids(searchIndex(pages, 'webhooks retries signature', { limit: 3 }));
    expect(order.indexOf(2)).toBeLessThan(order.indexOf(1));
  });

  it('returns nothing for stop-word-only or empty queries and limit 0', () => {
    expect(searchIndex(index, 'what is the', { limit: 5 })).toEqual([]);
    expect(searchIndex(index, '', { limit: 5 })).toEqual([]);
    expect(searchIndex(index, 'rate', { limit: 0 })).toEqual([]);
  });

  it('matches a one-edit typo of a long word', () => {
    expect(ids(searchIndex(index, 'instal streeming', { limit: 10 }))).toContain(4);
    expect(withinOneEdit('serch', 'search')).toBe(true);
    expect(withinOneEdit('recieve', 'receive')).toBe(true);
    expect(withinOneEdit('stream', 'scream')).toBe(true);
    expect(withinOneEdit('stream', 'dream')).toBe(false);
  });

  it('finds the long form of a short form readers type ("env var" for "environment variable")', () => {
    const short = buildSearchIndex([
      chunk({
        id: 1,
        pagePath: 'a',
        pageTitle: 'Models',
        text: `Set the DOCENT_MODEL environment variable. ${filler}`,
      }),
      chunk({
        id: 2,
        pagePath: 'b',
        pageTitle: 'Templates',
        text: `Template placeholders and their defaults. ${filler}`,
      }),
    ]);
    const hits = searchIndex(short, 'which env var', { limit: 2 });
    expect(ids(hits)).toEqual([1]);
    // Both words count as found for the retrieval strength, as if the reader had spelt them out.
    expect(hits[0]?.coverage).toBe(1);
  });

  it("counts a Chinese or Japanese question's function words (在哪里, 是什么, いつ…ますか) as no words the docs must have", () => {
    const cjk = buildSearchIndex([
      chunk({
        id: 1,
        pagePath: 'a',
        pageTitle: '配置',
        text: '配置文件位于项目根目录下。修改后需要重启服务。',
      }),
      chunk({ id: 2, pagePath: 'b', pageTitle: '发票', text: '发票可以下载为 PDF 格式。' }),
      chunk({ id: 3, pagePath: 'c', pageTitle: '料金', text: '毎月一日にクレジットがリセットされます。' }),
    ]);
    for (const [question, id] of [
      ['配置文件在哪里？', 1],
      ['发票是什么格式？', 2],
      ['クレジットはいつリセットされますか？', 3],
    ] as const) {
      const [hit] = searchIndex(cjk, question, { limit: 1 });
      expect(hit?.chunkId, question).toBe(id);
      expect(hit?.coverage, question).toBe(1);
    }
  });

  it("counts an Arabic or Hebrew question's function words (متى, ما هو; איך, מתי) as no words the docs must have", () => {
    const rtl = buildSearchIndex([
      chunk({
        id: 1,
        pagePath: 'a',
        pageTitle: 'الفوترة',
        text: 'يُعاد تعيين الرصيد الشهري في اليوم الأول من كل شهر.',
      }),
      chunk({ id: 2, pagePath: 'b', pageTitle: 'מפתחות', text: 'פתחו את לוח הבקרה ולחצו על יצירת מפתח.' }),
      chunk({
        id: 3,
        pagePath: 'c',
        pageTitle: 'חיוב',
        text: 'המכסה החודשית מתאפסת ביום הראשון של כל חודש.',
      }),
    ]);
    for (const [question, id] of [
      ['متى يعاد تعيين الرصيد الشهري؟', 1],
      ['איך יצירת מפתח?', 2],
      ['מתי המכסה החודשית מתאפסת?', 3],
    ] as const) {
      const [hit] = searchIndex(rtl, question, { limit: 1 });
      expect(hit?.chunkId, question).toBe(id);
      expect(hit?.coverage, question).toBe(1);
    }
  });

  it('re-analyzes chunks whose stored analysis is missing or stale, with identical results', () => {
    const raw = buildSearchIndex(corpus.map((c) => ({ ...c, analyzed: { v: 0 } })));
    expect(searchIndex(raw, 'rate limits 429', { limit: 10 })).toEqual(
      searchIndex(index, 'rate limits 429', { limit: 10 }),
    );
  });

  it("reads storage's JSON text of an analysis like the analysis itself", () => {
    const stored = buildSearchIndex(corpus.map((c) => ({ ...c, analyzed: JSON.stringify(c.analyzed) })));
    for (const query of ['rate limits 429', 'instal streeming', 'webhook events'])
      expect(searchIndex(stored, query, { limit: 10 })).toEqual(searchIndex(index, query, { limit: 10 }));
  });

  it('does not leak scores between queries (scratch arrays are reset)', () => {
    const first = searchIndex(index, 'rate limits', { limit: 10 });
    searchIndex(index, 'streaming events install', { limit: 10 });
    expect(searchIndex(index, 'rate limits', { limit: 10 })).toEqual(first);
  });
});

describe('searchIndex filters', () => {
  const index = buildSearchIndex([
    chunk({
      id: 1,
      pagePath: 'v1/en/setup',
      pageTitle: 'Setup',
      text: 'setup guide',
      versions: ['v1'],
      languages: ['en'],
    }),
    chunk({
      id: 2,
      pagePath: 'v2/en/setup',
      pageTitle: 'Setup',
      text: 'setup guide',
      versions: ['V2'],
      languages: ['en'],
    }),
    chunk({
      id: 3,
      pagePath: 'v2/es/setup',
      pageTitle: 'Setup',
      text: 'setup guide',
      versions: ['v2'],
      languages: ['es'],
    }),
    chunk({ id: 4, pagePath: 'changelog', pageTitle: 'Changelog', text: 'setup guide changes' }),
    chunk({ id: 5, pagePath: 'both/setup', pageTitle: 'Setup', text: 'setup guide', versions: ['v1', 'v2'] }),
  ]);
  const filtered = (version?: string, language?: string): number[] =>
    ids(searchIndex(index, 'setup guide', { limit: 10, version, language })).sort();

  it('keeps chunks carrying the label, or no label of that kind, case-insensitively', () => {
    expect(filtered('v2')).toEqual([2, 3, 4, 5]);
    expect(filtered('V1')).toEqual([1, 4, 5]);
    expect(filtered(undefined, 'EN')).toEqual([1, 2, 4, 5]);
    expect(filtered('v2', 'es')).toEqual([3, 4, 5]);
    expect(filtered()).toEqual([1, 2, 3, 4, 5]);
    expect(filtered('v9')).toEqual([4]);
  });

  it('names a version filter as the site spells it, or the versions it has', () => {
    expect(siteVersionLabel(index, ' V1 ')).toEqual({ version: 'v1' });
    expect(siteVersionLabel(index, 'v1')).toEqual({ version: 'v1' });
    expect(siteVersionLabel(index, '  ')).toEqual({ version: undefined });
    expect(siteVersionLabel(index, null)).toEqual({ version: undefined });
    expect(siteVersionLabel(index, 'v9')).toEqual({ unknown: ['v1', 'v2', 'V2'] });
    const unversioned = buildSearchIndex([chunk({ id: 1, pagePath: 'a', pageTitle: 'A', text: 'setup' })]);
    expect(siteVersionLabel(unversioned, ' v9 ')).toEqual({ version: 'v9' });
  });
});

describe('the language of a question without a language filter', () => {
  const bilingual = buildSearchIndex([
    chunk({
      id: 1,
      pagePath: 'en/keys',
      pageTitle: 'API keys',
      text: 'Rotate the API key',
      languages: ['en'],
    }),
    chunk({
      id: 2,
      pagePath: 'fr/keys',
      pageTitle: 'Clés API',
      text: 'Faire pivoter la clé API',
      languages: ['fr'],
    }),
  ]);

  it("is the site's label of the language it is written in, when it is clear", () => {
    expect(questionLanguageLabel(bilingual, 'How do I rotate the API key?')).toBe('en');
    expect(questionLanguageLabel(bilingual, 'Comment faire pivoter la clé API ?')).toBe('fr');
    expect(questionLanguageLabel(bilingual, 'API key')).toBeUndefined();
  });

  it('is none on a site without language labels, or without a label for that language', () => {
    const unlabelled = buildSearchIndex([chunk({ id: 1, pagePath: 'a', pageTitle: 'A', text: 'the key' })]);
    expect(questionLanguageLabel(unlabelled, 'Comment faire pivoter la clé ?')).toBeUndefined();
    const frenchOnly = buildSearchIndex([
      chunk({ id: 1, pagePath: 'keys', pageTitle: 'Keys', text: 'Rotate the key' }),
      chunk({ id: 2, pagePath: 'fr/keys', pageTitle: 'Clés', text: 'Pivoter la clé', languages: ['fr'] }),
    ]);
    expect(questionLanguageLabel(frenchOnly, 'How do I rotate the key?')).toBeUndefined();
    expect(questionLanguageLabel(frenchOnly, 'Comment faire pivoter la clé ?')).toBe('fr');
  });
});

describe('currentPath boost', () => {
  // Two chunks with identical text on two pages: an exact tie, broken by chunk id without a boost.
  const twins = [
    chunk({
      id: 1,
      pagePath: 'guides/alpha',
      pageTitle: 'Guide',
      text: `Configure webhooks here. ${filler}`,
    }),
    chunk({ id: 2, pagePath: 'guides/beta', pageTitle: 'Guide', text: `Configure webhooks here. ${filler}` }),
    chunk({ id: 3, pagePath: 'other/gamma', pageTitle: 'Guide', text: `Configure webhooks here. ${filler}` }),
  ];
  const strong = chunk({
    id: 4,
    pagePath: 'reference/webhooks',
    pageTitle: 'Webhooks',
    headings: ['Configure webhooks'],
    text: 'Configure webhooks: webhooks send events. Configure webhooks per project.',
  });
  const index = buildSearchIndex([...twins, strong]);

  it('reorders near-ties towards the current page, given as id, URL path or full URL', () => {
    const plain = buildSearchIndex(twins);
    expect(ids(searchIndex(plain, 'configure webhooks', { limit: 3 }))).toEqual([1, 2, 3]);
    for (const currentPath of ['guides/beta', '/guides/beta', 'https://docs.example.com/guides/beta#setup']) {
      expect(ids(searchIndex(plain, 'configure webhooks', { limit: 3, currentPath }))[0]).toBe(2);
    }
  });

  it('mildly prefers siblings of the current page over other folders', () => {
    const neighbour = chunk({ id: 9, pagePath: 'other/delta', pageTitle: 'Delta', text: 'Unrelated words.' });
    const plain = buildSearchIndex([...twins, neighbour]);
    const order = ids(searchIndex(plain, 'configure webhooks', { limit: 3, currentPath: '/other/delta' }));
    expect(order).toEqual([3, 1, 2]);
  });

  it('never lifts a clearly weaker chunk above a clearly better one', () => {
    expect(ids(searchIndex(index, 'configure webhooks', { limit: 4 }))[0]).toBe(4);
    expect(ids(searchIndex(index, 'configure webhooks', { limit: 4, currentPath: '/guides/beta' }))[0]).toBe(
      4,
    );
  });

  it('ignores a current path that matches no page', () => {
    expect(searchIndex(index, 'configure webhooks', { limit: 4, currentPath: '/nowhere' })).toEqual(
      searchIndex(index, 'configure webhooks', { limit: 4 }),
    );
  });
});

describe('current-path helpers', () => {
  it('normalises page references', () => {
    expect(normalizePagePath('https://x.dev/Guides/Setup.mdx?a=1#b')).toBe('guides/setup');
    expect(normalizePagePath('/guides/setup/')).toBe('guides/setup');
    expect(normalizePagePath('guides/index')).toBe('guides');
  });

  it('resolves a URL under a base path to the page id', () => {
    const pages = new Map([['guides/setup', 7]]);
    expect(resolvePage('/docs/guides/setup', pages)).toBe(7);
    expect(resolvePage('/docs/guides/other', pages)).toBeUndefined();
  });
});

describe('defaults', () => {
  it('keeps the current-page boost small relative to relevance', () => {
    expect(DEFAULT_RANKING.currentPageBoost).toBeLessThanOrEqual(0.1);
    expect(DEFAULT_RANKING.siblingBoost).toBeLessThan(DEFAULT_RANKING.currentPageBoost);
  });
});

describe('landing page for questions about the whole site', () => {
  // "Acme" is in every chunk, as a product's name is in its docs; the landing page says what it is once.
  const site = [
    chunk({ id: 0, pagePath: 'index', pageTitle: 'Introduction', text: 'Acme sends invoices for you.' }),
    chunk({
      id: 1,
      pagePath: 'guides/theme',
      pageTitle: 'Theme',
      text: 'Acme can be themed. Acme colors follow Acme settings, and Acme fonts too.',
    }),
    chunk({
      id: 2,
      pagePath: 'guides/keys',
      pageTitle: 'Keys',
      text: 'Rotate an Acme key from the keys page.',
    }),
    chunk({ id: 3, pagePath: 'guides/export', pageTitle: 'Export', text: 'Acme exports invoices as CSV.' }),
    ...['billing', 'users', 'webhooks', 'limits', 'taxes'].map((topic, i) =>
      chunk({ id: 4 + i, pagePath: `guides/${topic}`, pageTitle: topic, text: `Acme ${topic} explained.` }),
    ),
  ];
  const index = buildSearchIndex(site);
  const landing = { siteName: 'Acme Docs', pages: ['index', 'guides/theme'] };

  it("puts the landing page first when every word of the question is a word of the site's name", () => {
    expect(ids(searchIndex(index, 'what is acme', { limit: 4 }))[0]).not.toBe(0);
    for (const question of ['what is acme', 'What is Acme?', 'acme docs'])
      expect(ids(searchIndex(index, question, { limit: 4, landing }))[0], question).toBe(0);
  });

  it('leaves any other question as it ranks, however common its words', () => {
    // "invoices", "key" and "acme" are each in a quarter of the chunks or more.
    for (const question of ['rotate acme key', 'acme theme colors', 'invoices', 'acme invoices', 'key']) {
      expect(searchIndex(index, question, { limit: 4, landing }), question).toEqual(
        searchIndex(index, question, { limit: 4 }),
      );
    }
  });

  it('lands on the first landing page that the language filter lets through', () => {
    const bilingual = buildSearchIndex([
      ...site.map((c) => ({ ...c, languages: ['en'] })),
      chunk({
        id: 20,
        pagePath: 'fr/index',
        pageTitle: 'Introduction',
        text: 'Acme envoie vos factures.',
        languages: ['fr'],
      }),
      chunk({
        id: 21,
        pagePath: 'fr/cles',
        pageTitle: 'Clés',
        text: 'Acme: Acme, Acme et Acme.',
        languages: ['fr'],
      }),
    ]);
    const both = { siteName: 'Acme', pages: ['index', 'fr/index'] };
    expect(ids(searchIndex(bilingual, 'acme', { limit: 2, language: 'fr', landing: both }))[0]).toBe(20);
    expect(ids(searchIndex(bilingual, 'acme', { limit: 2, language: 'en', landing: both }))[0]).toBe(0);
  });

  it("prefers the landing page's opening section, where a product says what it is", () => {
    const builder = new SearchIndexBuilder(DEFAULT_RANKING, ANALYZER_VERSION);
    const opening = chunk({
      id: 0,
      pagePath: 'index',
      pageTitle: 'Introduction',
      text: 'Acme sends invoices.',
    });
    const later = chunk({
      id: 1,
      pagePath: 'index',
      pageTitle: 'Introduction',
      headings: ['Next steps'],
      text: 'Acme setup: install Acme, then open Acme.',
    });
    addChunk(builder, opening, 0);
    addChunk(builder, later, 1);
    for (const [i, c] of site.slice(1).entries()) addChunk(builder, { ...c, id: 2 + i });
    const withOpening = builder.finish();
    expect(ids(searchIndex(withOpening, 'what is acme', { limit: 4 }))[0]).not.toBe(0);
    expect(ids(searchIndex(withOpening, 'what is acme', { limit: 4, landing })).slice(0, 2)).toEqual([0, 1]);
  });

  it('ignores landing pages that name no page', () => {
    expect(
      searchIndex(index, 'what is acme', { limit: 4, landing: { siteName: 'Acme', pages: ['nowhere'] } }),
    ).toEqual(searchIndex(index, 'what is acme', { limit: 4 }));
  });
});
